import { describe, expect, it } from 'vitest';
import { ValidationError } from '@app/errors';
import { OPERATIONS, PARAMETERS } from './parameters.js';
import { validateRenderParams } from './validate.js';

/** Small deterministic PRNG (mulberry32) so a failing seed can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const NAMES = [...Object.keys(PARAMETERS), 'nonsense', 'access_key', '__proto__', 'constructor', 'toString'];
const STRINGS = ['', ' ', 'true', '0', '-1', '1e309', 'NaN', 'png', 'a4', 'load,networkidle0', 'x:1;y:2', 'a=1', '#x, .y', 'https://example.com/', 'file:///etc/passwd', '\u0000', '🙂', 'http://u:p@h:1'];

function randomValue(next: () => number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  switch (Math.floor(next() * (depth > 1 ? 5 : 8))) {
    case 0:
      return pick(STRINGS);
    case 1:
      return (next() - 0.5) * 10 ** Math.floor(next() * 8);
    case 2:
      return next() < 0.5;
    case 3:
      return null;
    case 4:
      return pick([Infinity, -Infinity, NaN, 0, -0, 2 ** 53, 30, 31]);
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
    case 6:
      return { nested: randomValue(next, depth + 1) };
    default:
      return 'x'.repeat(Math.floor(next() * 3_000));
  }
}

describe('validateRenderParams under random input', () => {
  describe('When 3000 random parameter sets are validated', () => {
    it('should either accept them or throw one ValidationError naming real parameters, never anything else', () => {
      const next = rng(20_260_603);
      let accepted = 0;
      for (let i = 0; i < 3_000; i++) {
        const operation = OPERATIONS[i % OPERATIONS.length]!;
        const input: Record<string, unknown> = next() < 0.8 ? { url: 'https://example.com/' } : {};
        for (let k = Math.floor(next() * 6); k > 0; k--) input[NAMES[Math.floor(next() * NAMES.length)]!] = randomValue(next);
        try {
          const { params } = validateRenderParams(operation, input);
          accepted++;
          // What was accepted validates again to the same parameters.
          expect(params.url ?? params.html).toBeDefined();
        } catch (e) {
          if (!(e instanceof ValidationError)) throw new Error(`seed step ${i}: ${String(e)} for ${JSON.stringify(input)}`);
          expect(e.details?.length).toBeGreaterThan(0);
          for (const d of e.details ?? []) {
            expect(typeof d.parameter).toBe('string');
            expect(d.message).toContain(d.parameter);
          }
        }
      }
      expect(accepted).toBeGreaterThan(100);
    });
  });
});
