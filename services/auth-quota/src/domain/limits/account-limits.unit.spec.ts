import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  LEASE_MS,
  MAX_LEASES_PER_WINDOW,
  emptyLimits,
  grantLease,
  inFlight,
  isOpen,
  monthOf,
  peekRate,
  quotaUsage,
  reserve,
  restoreUsage,
  returnLease,
  settle,
  takeRate,
  type LimitsState,
  type ReservationTerms,
} from './account-limits.js';

const t0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const limits = { rateLimitPerMinute: 3, monthlyQuota: 3, rendersInFlight: 2 };
const HOLD = 60_000;
const JOB_RENDER: ReservationTerms = { settler: 'job', holds: 'render' };
const ANSWER_RENDER: ReservationTerms = { settler: 'answer', holds: 'render' };

describe('Account limits', () => {
  describe('When L requests were taken this minute', () => {
    it('should refuse the next one with a Retry-After until the minute ends, and admit again in the next minute', () => {
      const s = emptyLimits();
      for (let i = 0; i < 3; i++) expect(takeRate(s, 3, t0 + 1000).allowed).toBe(true);
      expect(takeRate(s, 3, t0 + 20_000)).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 40, resetUnix: t0 / 1000 + 60 });
      expect(takeRate(s, 3, t0 + 60_000)).toMatchObject({ allowed: true, remaining: 2 });
    });
  });

  describe('When a rate lease is granted', () => {
    it('should count its units in the window at once, at most a quarter of what is left', () => {
      const s = emptyLimits();
      takeRate(s, 100, t0);
      expect(grantLease(s, 100, 'lease-1', 50, t0)).toEqual({ units: 24, validMs: LEASE_MS });
      expect(peekRate(s, 100, t0).remaining).toBe(75);
      expect(grantLease(s, 100, 'lease-2', 5, t0)?.units).toBe(5);
      expect(grantLease(s, 100, 'lease-3', 1_000, t0)?.units).toBe(17);
      expect(s.window).toMatchObject({ count: 47, leases: { 'lease-1': 24, 'lease-2': 5, 'lease-3': 17 } });
    });

    it('should grant nothing near the limit, so the last requests of a window are counted one by one', () => {
      const s = emptyLimits();
      for (let i = 0; i < 7; i++) takeRate(s, 10, t0);
      expect(grantLease(s, 10, 'lease-1', 5, t0)).toBeUndefined();
      expect(grantLease(s, 10, 'lease-2', 0, t0)).toBeUndefined();
      expect(grantLease(emptyLimits(), 10, 'lease-3', -1, t0)).toBeUndefined();
      expect(s.window).toEqual({ startMs: t0, count: 7 });
      for (let i = 0; i < 3; i++) expect(takeRate(s, 10, t0).allowed).toBe(true);
      expect(takeRate(s, 10, t0).allowed).toBe(false);
    });

    it('should grant nothing more when the same id is granted again (a retried admission), and answer the same units', () => {
      const s = emptyLimits();
      expect(grantLease(s, 100, 'lease-1', 10, t0)?.units).toBe(10);
      expect(grantLease(s, 100, 'lease-1', 10, t0 + 500)).toEqual({ units: 10, validMs: LEASE_MS });
      expect(s.window.count).toBe(10);
    });

    it('should never let it be spent past the end of its window', () => {
      const s = emptyLimits();
      expect(grantLease(s, 100, 'lease-1', 10, t0 + 59_700)?.validMs).toBe(300);
      expect(grantLease(s, 100, 'lease-1', 10, t0 + 59_999)?.validMs).toBe(1);
      expect(grantLease(s, 100, 'lease-2', 10, t0 + 60_000)?.validMs).toBe(LEASE_MS);
    });

    it('should start the next window without the leases of the last', () => {
      const s = emptyLimits();
      grantLease(s, 100, 'lease-1', 10, t0);
      takeRate(s, 100, t0 + 60_000);
      expect(s.window).toEqual({ startMs: t0 + 60_000, count: 1 });
    });

    it(`should refuse more once the window holds ${MAX_LEASES_PER_WINDOW} leases`, () => {
      const s = emptyLimits();
      for (let i = 0; i < MAX_LEASES_PER_WINDOW; i++) expect(grantLease(s, 1_000_000_000, `lease-${i}`, 1, t0)?.units).toBe(1);
      expect(grantLease(s, 1_000_000_000, 'one-more', 1, t0)).toBeUndefined();
      expect(grantLease(s, 1_000_000_000, 'lease-0', 1, t0)?.units).toBe(1);
      returnLease(s, 'lease-0', 0, t0);
      expect(grantLease(s, 1_000_000_000, 'one-more', 1, t0)?.units).toBe(1);
    });

    it('should take any id as a key of its own (never an inherited property)', () => {
      const s = emptyLimits();
      for (const id of ['__proto__', 'constructor', 'toString']) {
        expect(returnLease(s, id, 1, t0)).toBe(0);
        expect(grantLease(s, 100, id, 4, t0)?.units).toBe(4);
      }
      const stored = JSON.parse(JSON.stringify(s)) as LimitsState;
      expect(stored.window.count).toBe(12);
      expect(returnLease(stored, '__proto__', 4, t0)).toBe(4);
      expect(stored.window.count).toBe(8);
    });
  });

  describe('When a rate lease is given back', () => {
    it('should give its unused units back once, at most what it granted, and a repeat gives nothing', () => {
      const s = emptyLimits();
      grantLease(s, 100, 'lease-1', 10, t0);
      grantLease(s, 100, 'lease-2', 10, t0);
      expect(returnLease(s, 'lease-1', 4, t0 + 900)).toBe(4);
      expect(s.window.count).toBe(16);
      expect(returnLease(s, 'lease-1', 4, t0 + 900)).toBe(0);
      expect(returnLease(s, 'lease-2', 50, t0 + 900)).toBe(10);
      expect(returnLease(s, 'nobody', 3, t0 + 900)).toBe(0);
      expect(s.window).toEqual({ startMs: t0, count: 6, leases: {} });
    });

    it('should change nothing once its window has ended', () => {
      const s = emptyLimits();
      grantLease(s, 100, 'lease-1', 10, t0 + 59_500);
      takeRate(s, 100, t0 + 60_000);
      expect(returnLease(s, 'lease-1', 10, t0 + 60_100)).toBe(0);
      expect(s.window).toEqual({ startMs: t0 + 60_000, count: 1 });
    });

    it('should take a negative count of unused units as none', () => {
      const s = emptyLimits();
      grantLease(s, 100, 'lease-1', 10, t0);
      expect(returnLease(s, 'lease-1', -5, t0)).toBe(0);
      expect(s.window.count).toBe(10);
    });
  });

  describe('When requests, leases and returns of many holders interleave at random', () => {
    it('should never admit more than the limit in a window, counting units spent from leases', () => {
      /** One step: time passes, then a request, a lease (sometimes a retried one), a spending or a return. */
      const step = fc.record({ elapseMs: fc.nat(499), op: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), pick: fc.nat(), retry: fc.boolean() });
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 60 }), fc.nat(59_999), fc.array(step, { minLength: 100, maxLength: 400 }), (limit, offsetMs, steps) => {
          const s = emptyLimits();
          let nowMs = t0 + offsetMs;
          let windowStart = Math.floor(nowMs / 60_000) * 60_000;
          let admitted = 0;
          /** Leases held in this window: units granted, spent and whether given back. */
          let held = new Map<string, { granted: number; spent: number; returned: boolean }>();
          let ids = 0;
          for (const { elapseMs, op, pick, retry } of steps) {
            nowMs += elapseMs;
            const start = Math.floor(nowMs / 60_000) * 60_000;
            if (start !== windowStart) {
              // A lease never outlives its window: what was not spent is lost with it.
              windowStart = start;
              admitted = 0;
              held = new Map();
            }
            const active = [...held].filter(([, l]) => !l.returned);
            if (op < 0.35) {
              if (takeRate(s, limit, nowMs).allowed) admitted += 1;
            } else if (op < 0.6) {
              const retried = active.length > 0 && retry ? active[pick % active.length]! : undefined;
              const id = retried?.[0] ?? `lease-${ids++}`;
              const lease = grantLease(s, limit, id, 1 + (pick % limit), nowMs);
              if (retried) {
                expect(lease?.units).toBe(retried[1].granted);
              } else if (lease) {
                expect(lease.validMs).toBeLessThanOrEqual(windowStart + 60_000 - nowMs);
                held.set(id, { granted: lease.units, spent: 0, returned: false });
              }
            } else if (op < 0.85 && active.length > 0) {
              const [, l] = active[pick % active.length]!;
              // Some of what is left, or all of it.
              const spend = retry ? l.granted - l.spent : pick % (l.granted - l.spent + 1);
              l.spent += spend;
              admitted += spend;
            } else if (held.size > 0) {
              // The holder gives back what it did not spend (sometimes once more, as a retry would).
              const [id, l] = [...held][pick % held.size]!;
              expect(returnLease(s, id, l.granted - l.spent, nowMs)).toBe(l.returned ? 0 : l.granted - l.spent);
              l.returned = true;
            }
            expect(admitted).toBeLessThanOrEqual(limit);
            expect(s.window.count).toBeLessThanOrEqual(limit);
          }
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('When renders are reserved', () => {
    it('should hold at most the plan’s renders in flight, then refuse with concurrency_limited', () => {
      const s = emptyLimits();
      expect(reserve(s, 'r1', JOB_RENDER, limits, HOLD, t0).kind).toBe('reserved');
      expect(reserve(s, 'r2', JOB_RENDER, limits, HOLD, t0).kind).toBe('reserved');
      expect(reserve(s, 'r3', JOB_RENDER, limits, HOLD, t0)).toMatchObject({ kind: 'concurrency_limited', limit: 2 });
      expect(inFlight(s, t0)).toBe(2);
      settle(s, 'r1', true, 'job', t0);
      expect(reserve(s, 'r3', JOB_RENDER, limits, HOLD, t0).kind).toBe('reserved');
    });

    it('should never let reservations and usage exceed the quota, quota_exceeded first', () => {
      const s = emptyLimits();
      const wide = { ...limits, rendersInFlight: 10 };
      for (const id of ['a', 'b', 'c']) expect(reserve(s, id, JOB_RENDER, wide, HOLD, t0).kind).toBe('reserved');
      expect(reserve(s, 'd', JOB_RENDER, wide, HOLD, t0).kind).toBe('quota_exceeded');
      expect(settle(s, 'a', false, 'job', t0)).toBe('released');
      expect(reserve(s, 'd', JOB_RENDER, wide, HOLD, t0).kind).toBe('reserved');
      expect(quotaUsage(s, 3, t0)).toMatchObject({ used: 0, reserved: 3, remaining: 0 });
    });

    it('should hold nothing more when the same id is reserved again (a retried admission)', () => {
      const s = emptyLimits();
      reserve(s, 'r1', JOB_RENDER, limits, HOLD, t0);
      expect(reserve(s, 'r1', JOB_RENDER, limits, HOLD, t0).kind).toBe('reserved');
      expect(inFlight(s, t0)).toBe(1);
    });

    it('should hold a unit for any id, even one named like an object property', () => {
      const s = emptyLimits();
      for (const id of ['constructor', 'toString', '__proto__']) {
        expect(isOpen(s, id)).toBe(false);
        expect(reserve(s, id, JOB_RENDER, { ...limits, rendersInFlight: 10 }, HOLD, t0).kind).toBe('reserved');
        expect(isOpen(s, id)).toBe(true);
      }
      expect(inFlight(s, t0)).toBe(3);
      expect(settle(s, 'valueOf', true, 'job', t0)).toBe('unknown');
    });
  });

  describe('When a reservation is settled', () => {
    it('should commit on success once, and recognise a repeat', () => {
      const s = emptyLimits();
      reserve(s, 'r1', JOB_RENDER, limits, HOLD, t0);
      expect(settle(s, 'r1', true, 'job', t0)).toBe('committed');
      expect(settle(s, 'r1', true, 'job', t0)).toBe('repeated');
      expect(settle(s, 'r1', false, 'job', t0)).toBe('repeated');
      expect(quotaUsage(s, 3, t0)).toMatchObject({ used: 1, reserved: 0, remaining: 2 });
    });

    it('should call a reservation it never held unknown', () => {
      expect(settle(emptyLimits(), 'nobody', true, 'job', t0)).toBe('unknown');
    });

    it('should release it when its hold is over, and count a late outcome as a repeat', () => {
      const s = emptyLimits();
      reserve(s, 'r1', JOB_RENDER, limits, HOLD, t0);
      expect(inFlight(s, t0 + HOLD)).toBe(0);
      expect(settle(s, 'r1', true, 'job', t0 + HOLD + 1)).toBe('repeated');
      expect(quotaUsage(s, 3, t0 + HOLD + 1)).toMatchObject({ used: 0, reserved: 0, remaining: 3 });
    });

    it('should count usage in the month it was reserved in', () => {
      const s = emptyLimits();
      const lastMinute = Date.UTC(2026, 10, 30, 23, 59, 59);
      reserve(s, 'r1', JOB_RENDER, limits, HOLD, lastMinute);
      settle(s, 'r1', true, 'job', lastMinute + 5_000);
      expect(s.used).toEqual({ '2026-11': 1 });
    });
  });

  describe('When a reservation says who ends it', () => {
    it("should leave a reservation its holder ends to the holder: a job's outcome is ignored, the holder's answer settles it", () => {
      const s = emptyLimits();
      reserve(s, 'sync', ANSWER_RENDER, limits, HOLD, t0);
      expect(settle(s, 'sync', true, 'job', t0)).toBe('ignored');
      expect(settle(s, 'sync', false, 'job', t0)).toBe('ignored');
      expect(inFlight(s, t0)).toBe(1);
      expect(settle(s, 'sync', false, 'answer', t0)).toBe('released');
      expect(quotaUsage(s, 3, t0)).toMatchObject({ used: 0, reserved: 0 });
      expect(settle(s, 'sync', true, 'job', t0)).toBe('repeated');
    });

    it("should let a job's holder release it (no job carries it) but never commit it", () => {
      const s = emptyLimits();
      reserve(s, 'async', JOB_RENDER, limits, HOLD, t0);
      expect(settle(s, 'async', true, 'answer', t0)).toBe('ignored');
      expect(settle(s, 'async', true, 'job', t0)).toBe('committed');
      reserve(s, 'never-published', JOB_RENDER, limits, HOLD, t0);
      expect(settle(s, 'never-published', false, 'answer', t0)).toBe('released');
    });

    it('should settle a reservation stored before settlers existed as a job’s', () => {
      const s = emptyLimits();
      s.open.old = { month: monthOf(t0), expiresAtMs: t0 + HOLD };
      expect(settle(s, 'old', true, 'answer', t0)).toBe('ignored');
      expect(settle(s, 'old', true, 'job', t0)).toBe('committed');
    });
  });

  describe('When a reservation holds only quota (a task created)', () => {
    it('should reserve it with every render slot of the account taken, and not count it as a render in flight', () => {
      const s = emptyLimits();
      const wide = { ...limits, monthlyQuota: 10 };
      reserve(s, 'r1', JOB_RENDER, wide, HOLD, t0);
      reserve(s, 'r2', JOB_RENDER, wide, HOLD, t0);
      expect(reserve(s, 'r3', JOB_RENDER, wide, HOLD, t0).kind).toBe('concurrency_limited');
      expect(reserve(s, 'task', { settler: 'answer', holds: 'quota' }, wide, HOLD, t0).kind).toBe('reserved');
      expect(inFlight(s, t0)).toBe(2);
      expect(quotaUsage(s, 10, t0)).toMatchObject({ reserved: 3 });
      expect(reserve(s, 'r3', JOB_RENDER, wide, HOLD, t0).kind).toBe('concurrency_limited');
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
