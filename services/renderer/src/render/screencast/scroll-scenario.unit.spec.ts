import { describe, expect, it } from 'vitest';
import { SCROLL_EASINGS } from '@app/render-params';
import { curveOf } from './scroll-scenario.js';

describe('curveOf', () => {
  it('should read every scroll_easing value as its kind and power', () => {
    expect(Object.fromEntries(SCROLL_EASINGS.map((e) => [e, curveOf(e)]))).toEqual({
      linear: { kind: 'linear', power: 1 },
      ease_in_quad: { kind: 'in', power: 2 },
      ease_out_quad: { kind: 'out', power: 2 },
      ease_in_out_quad: { kind: 'in_out', power: 2 },
      ease_in_cubic: { kind: 'in', power: 3 },
      ease_out_cubic: { kind: 'out', power: 3 },
      ease_in_out_cubic: { kind: 'in_out', power: 3 },
      ease_in_quart: { kind: 'in', power: 4 },
      ease_out_quart: { kind: 'out', power: 4 },
      ease_in_out_quart: { kind: 'in_out', power: 4 },
      ease_in_quint: { kind: 'in', power: 5 },
      ease_out_quint: { kind: 'out', power: 5 },
      ease_in_out_quint: { kind: 'in_out', power: 5 },
    });
  });
});
