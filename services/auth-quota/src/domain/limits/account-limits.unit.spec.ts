import { describe, expect, it } from 'vitest';
import { emptyLimits, inFlight, quotaUsage, reserve, restoreUsage, settle, takeRate } from './account-limits.js';

const t0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const limits = { rateLimitPerMinute: 3, monthlyQuota: 3, rendersInFlight: 2 };
const HOLD = 60_000;

describe('Account limits', () => {
  describe('When L requests were taken this minute', () => {
    it('should refuse the next one with a Retry-After until the minute ends, and admit again in the next minute', () => {
      const s = emptyLimits();
      for (let i = 0; i < 3; i++) expect(takeRate(s, 3, t0 + 1000).allowed).toBe(true);
      expect(takeRate(s, 3, t0 + 20_000)).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 40, resetUnix: t0 / 1000 + 60 });
      expect(takeRate(s, 3, t0 + 60_000)).toMatchObject({ allowed: true, remaining: 2 });
    });
  });

  describe('When renders are reserved', () => {
    it('should hold at most the plan’s renders in flight, then refuse with concurrency_limited', () => {
      const s = emptyLimits();
      expect(reserve(s, 'r1', limits, HOLD, t0).kind).toBe('reserved');
      expect(reserve(s, 'r2', limits, HOLD, t0).kind).toBe('reserved');
      expect(reserve(s, 'r3', limits, HOLD, t0)).toMatchObject({ kind: 'concurrency_limited', limit: 2 });
      expect(inFlight(s, t0)).toBe(2);
      settle(s, 'r1', true, t0);
      expect(reserve(s, 'r3', limits, HOLD, t0).kind).toBe('reserved');
    });

    it('should never let reservations and usage exceed the quota, quota_exceeded first', () => {
      const s = emptyLimits();
      const wide = { ...limits, rendersInFlight: 10 };
      for (const id of ['a', 'b', 'c']) expect(reserve(s, id, wide, HOLD, t0).kind).toBe('reserved');
      expect(reserve(s, 'd', wide, HOLD, t0).kind).toBe('quota_exceeded');
      expect(settle(s, 'a', false, t0)).toBe('released');
      expect(reserve(s, 'd', wide, HOLD, t0).kind).toBe('reserved');
      expect(quotaUsage(s, 3, t0)).toMatchObject({ used: 0, reserved: 3, remaining: 0 });
    });

    it('should hold nothing more when the same id is reserved again (a retried admission)', () => {
      const s = emptyLimits();
      reserve(s, 'r1', limits, HOLD, t0);
      expect(reserve(s, 'r1', limits, HOLD, t0).kind).toBe('reserved');
      expect(inFlight(s, t0)).toBe(1);
    });
  });

  describe('When a reservation is settled', () => {
    it('should commit on success once, and recognise a repeat', () => {
      const s = emptyLimits();
      reserve(s, 'r1', limits, HOLD, t0);
      expect(settle(s, 'r1', true, t0)).toBe('committed');
      expect(settle(s, 'r1', true, t0)).toBe('repeated');
      expect(settle(s, 'r1', false, t0)).toBe('repeated');
      expect(quotaUsage(s, 3, t0)).toMatchObject({ used: 1, reserved: 0, remaining: 2 });
    });

    it('should call a reservation it never held unknown', () => {
      expect(settle(emptyLimits(), 'nobody', true, t0)).toBe('unknown');
    });

    it('should release it when its hold is over, and count a late outcome as a repeat', () => {
      const s = emptyLimits();
      reserve(s, 'r1', limits, HOLD, t0);
      expect(inFlight(s, t0 + HOLD)).toBe(0);
      expect(settle(s, 'r1', true, t0 + HOLD + 1)).toBe('repeated');
      expect(quotaUsage(s, 3, t0 + HOLD + 1)).toMatchObject({ used: 0, reserved: 0, remaining: 3 });
    });

    it('should count usage in the month it was reserved in', () => {
      const s = emptyLimits();
      const lastMinute = Date.UTC(2026, 10, 30, 23, 59, 59);
      reserve(s, 'r1', limits, HOLD, lastMinute);
      settle(s, 'r1', true, lastMinute + 5_000);
      expect(s.used).toEqual({ '2026-11': 1 });
    });
  });

  describe('When older usage is restored', () => {
    it('should raise the month’s usage, never lower it', () => {
      const s = emptyLimits();
      expect(restoreUsage(s, '2026-11', 2)).toBe(true);
      expect(restoreUsage(s, '2026-11', 1)).toBe(false);
      expect(quotaUsage(s, 3, t0).used).toBe(2);
    });
  });
});
