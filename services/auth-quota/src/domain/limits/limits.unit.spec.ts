import { describe, expect, it } from 'vitest';
import { rateWindows } from './rate-window.js';
import { quotaLedger } from './quota-ledger.js';

const t0 = Date.UTC(2026, 10, 23, 10, 0, 0);

describe('Rate windows', () => {
  describe('When L requests were taken this minute', () => {
    it('should refuse the next one with a Retry-After until the minute ends', () => {
      const w = rateWindows();
      for (let i = 0; i < 3; i++) expect(w.take('a', 3, t0 + 1000).allowed).toBe(true);
      const refused = w.take('a', 3, t0 + 20_000);
      expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 40, resetUnix: t0 / 1000 + 60 });
    });

    it('should admit again in the next minute and keep accounts apart', () => {
      const w = rateWindows();
      for (let i = 0; i < 3; i++) w.take('a', 3, t0);
      expect(w.take('b', 3, t0).allowed).toBe(true);
      expect(w.take('a', 3, t0 + 60_000)).toMatchObject({ allowed: true, remaining: 2 });
    });
  });
});

describe('Quota ledger', () => {
  describe('When usage is restored at start', () => {
    it('should count it against the quota of that month only', () => {
      const q = quotaLedger({ reservationTtlMs: 60_000 });
      q.restore('a', '2026-11', 2);
      expect(q.reserve('r1', 'a', 2, t0)).toBeUndefined();
      expect(q.reserve('r2', 'a', 2, Date.UTC(2026, 11, 1))).toBeDefined();
    });
  });

  describe('When the quota is reserved up to its size', () => {
    it('should refuse further reservations until one is released', () => {
      const q = quotaLedger({ reservationTtlMs: 60_000 });
      expect(q.reserve('r1', 'a', 2, t0)).toBeDefined();
      expect(q.reserve('r2', 'a', 2, t0)).toBeDefined();
      expect(q.reserve('r3', 'a', 2, t0)).toBeUndefined();
      q.release('r1');
      expect(q.reserve('r4', 'a', 2, t0)).toBeDefined();
    });
  });

  describe('When a reservation is committed', () => {
    it('should count it as used once, however often it is committed', () => {
      const q = quotaLedger({ reservationTtlMs: 60_000 });
      q.reserve('r1', 'a', 5, t0);
      expect(q.commit('r1')).toMatchObject({ id: 'r1', accountId: 'a', month: '2026-11' });
      expect(q.commit('r1')).toBeUndefined();
      expect(q.usage('a', 5, t0)).toMatchObject({ used: 1, reserved: 0, remaining: 4 });
    });
  });

  describe('When a reservation is abandoned', () => {
    it('should return to the quota after its time to live', () => {
      const q = quotaLedger({ reservationTtlMs: 1_000 });
      q.reserve('r1', 'a', 1, t0);
      expect(q.reserve('r2', 'a', 1, t0 + 500)).toBeUndefined();
      expect(q.reserve('r3', 'a', 1, t0 + 1_500)).toBeDefined();
    });
  });
});
