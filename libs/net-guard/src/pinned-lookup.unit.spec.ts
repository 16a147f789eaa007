import { describe, expect, it } from 'vitest';
import { pinnedLookup } from './pinned-lookup.js';

function ask(addresses: string[], options: { all?: boolean; family?: number }) {
  return new Promise<{ err: Error | null; address: unknown; family: unknown }>((resolve) => {
    pinnedLookup(addresses)('any.test', options, (err, address, family) => resolve({ err, address, family }));
  });
}

describe('pinnedLookup', () => {
  describe('When asked for one address', () => {
    it('should answer with the first validated address of the wanted family, whatever the name', async () => {
      expect(await ask(['93.184.216.34', '2606:2800::1'], {})).toEqual({ err: null, address: '93.184.216.34', family: 4 });
      expect(await ask(['93.184.216.34', '2606:2800::1'], { family: 6 })).toEqual({ err: null, address: '2606:2800::1', family: 6 });
    });
  });

  describe('When asked for all addresses', () => {
    it('should answer with every validated address', async () => {
      const { address } = await ask(['93.184.216.34', '2606:2800::1'], { all: true });
      expect(address).toEqual([
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800::1', family: 6 },
      ]);
    });
  });

  describe('When no address fits', () => {
    it('should fail with ENOTFOUND rather than fall back to DNS', async () => {
      expect((await ask(['93.184.216.34'], { family: 6 })).err).toMatchObject({ code: 'ENOTFOUND' });
      expect((await ask(['example.com'], {})).err).toMatchObject({ code: 'ENOTFOUND' });
    });
  });
});
