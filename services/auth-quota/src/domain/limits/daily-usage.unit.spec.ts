import { describe, expect, it } from 'vitest';
import { daysOfMonthSoFar } from './daily-usage.js';

describe('Daily usage', () => {
  describe('When renders were committed on some days of the month', () => {
    it('should list every day from the 1st to today with its count, 0 for the others', () => {
      const days = daysOfMonthSoFar(Date.parse('2026-11-04T23:59:00Z'), new Map([['2026-11-02', 3], ['2026-11-04', 1], ['2026-10-31', 9]]));
      expect(days).toEqual([
        { day: '2026-11-01', used: 0 },
        { day: '2026-11-02', used: 3 },
        { day: '2026-11-03', used: 0 },
        { day: '2026-11-04', used: 1 },
      ]);
    });
  });

  describe('When it is the first day of the month', () => {
    it('should list that day alone', () => {
      expect(daysOfMonthSoFar(Date.parse('2026-12-01T00:00:00Z'), new Map())).toEqual([{ day: '2026-12-01', used: 0 }]);
    });
  });
});
