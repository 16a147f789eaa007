import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, withJitter } from './retry-schedule.js';

describe('parseRetrySchedule', () => {
  describe('When given the decided default', () => {
    it('should give 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h', () => {
      expect(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE)).toEqual([5e3, 30e3, 120e3, 600e3, 1_800e3, 3_600e3, 10_800e3, 21_600e3]);
    });
  });
  describe('When given milliseconds with and without a unit', () => {
    it('should read both', () => {
      expect(parseRetrySchedule('250ms, 400, 1.5s')).toEqual([250, 400, 1_500]);
    });
  });
  describe('When a part is not a delay, or nothing is given', () => {
    it.each(['5x', '-1s', 'soon', '', ' , '])('should refuse %j', (text) => {
      expect(() => parseRetrySchedule(text)).toThrow();
    });
  });
});

describe('withJitter', () => {
  it('should stay within ±jitter of the delay, reaching both bounds', () => {
    expect(withJitter(10_000, 0.1, () => 0)).toBe(9_000);
    expect(withJitter(10_000, 0.1, () => 1)).toBe(11_000);
    expect(withJitter(10_000, 0.1, () => 0.5)).toBe(10_000);
    for (let i = 0; i < 200; i++) {
      const d = withJitter(5_000, 0.2);
      expect(d).toBeGreaterThanOrEqual(4_000);
      expect(d).toBeLessThanOrEqual(6_000);
    }
  });
});
