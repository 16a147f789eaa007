import { describe, expect, it } from 'vitest';
import { parseCrontab } from './crontab.js';
import { deriveCrontab } from './frequency.js';

describe('Crontab', () => {
  describe('When the expression follows the specification', () => {
    it.each(['* * * * *', '*/15 * * * *', '0 9 * * 1-5', '5,35 0-23/2 1,15 1-12 0', '0 0 29 2 *', '  30   2 * * *  '])(
      'should accept %j',
      (expr) => {
        expect(parseCrontab(expr)).toEqual({ crontab: expr.trim().split(/\s+/).join(' ') });
      },
    );
  });

  describe.each([
    ['* * * *', /five fields/],
    ['* * * * * *', /five fields/],
    ['', /five fields/],
    ['* * * * MON', /only contain digits/],
    ['@hourly', /five fields/],
    ['? * * * *', /only contain digits/],
    ['L * * * *', /only contain digits/],
    ['60 * * * *', /minute field allows 0-59, got 60/],
    ['* 24 * * *', /hour field allows 0-23/],
    ['* * 0 * *', /day of month field allows 1-31/],
    ['* * * 13 *', /month field allows 1-12/],
    ['* * * * 7', /day of week field allows 0-6, got 7/],
    ['5-1 * * * *', /goes backwards/],
    ['*/0 * * * *', /step in the minute field must be between 1 and 60/],
    ['1-- * * * *', /is not a value/],
    ['0 0 30 2 *', /never matches a date/],
  ])('When the expression is %j', (expr, problem) => {
    it('should refuse it with a reason', () => {
      const parsed = parseCrontab(expr);
      expect('problem' in parsed && parsed.problem).toMatch(problem);
    });
  });
});

describe('Derived crontab', () => {
  describe('When a task is created at 13:47:20 UTC on the 15th', () => {
    it.each([
      ['every_minute', 'Etc/UTC', '* * * * *'],
      ['every_hour', 'Etc/UTC', '47 * * * *'],
      ['every_day', 'Etc/UTC', '47 13 * * *'],
      ['every_day', 'America/New_York', '47 9 * * *'],
      ['every_day', 'Asia/Kolkata', '17 19 * * *'],
      ['every_month', 'Asia/Tokyo', '47 22 15 * *'],
      ['every_hour', 'Asia/Kathmandu', '32 * * * *'],
    ] as const)('should derive %s in %s as %j', (frequency, zone, crontab) => {
      expect(deriveCrontab(frequency, Date.parse('2026-07-15T13:47:20Z'), zone)).toBe(crontab);
    });
  });

  describe('When a monthly task is created after the 28th in its zone', () => {
    it('should run on the 28th, so that it runs every month', () => {
      expect(deriveCrontab('every_month', Date.parse('2026-01-30T23:30:00Z'), 'Europe/Paris')).toBe('30 0 28 * *');
      expect(deriveCrontab('every_month', Date.parse('2026-01-30T23:30:00Z'), 'America/Chicago')).toBe('30 17 28 * *');
    });
  });
});
