import { describe, expect, it } from 'vitest';
import { effectiveRendersInFlight } from './fair-share.js';

describe('effectiveRendersInFlight', () => {
  describe.each([
    // fleet slots, plan limit, effective limit
    [1, 10, 2],
    [2, 10, 2],
    [2, 1, 1],
    [3, 10, 2],
    [4, 10, 3],
    [4, 2, 2],
    [8, 25, 6],
    [40, 30, 30],
    [100, 25, 25],
  ])('When the fleet runs %i renders at once and the plan allows %i', (slots, plan, expected) => {
    it(`should allow ${expected}`, () => {
      expect(effectiveRendersInFlight(plan, slots)).toBe(expected);
    });
  });

  describe('When no renderer has reported its slots', () => {
    it("should leave the plan's limit", () => {
      expect(effectiveRendersInFlight(25, undefined)).toBe(25);
      expect(effectiveRendersInFlight(25, 0)).toBe(25);
    });
  });
});
