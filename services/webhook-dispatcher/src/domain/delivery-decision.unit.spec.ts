import { describe, expect, it } from 'vitest';
import { decideAfterAttempt, type AttemptOutcome, type RetryPolicy } from './delivery-decision.js';

const policy: RetryPolicy = { scheduleMs: [5_000, 30_000, 120_000], jitter: 0.1, maxDelayMs: 6 * 3_600_000 };
const NOW = 1_800_000_000_000;
const middle = () => 0.5;
const response = (status: number, retryAfterMs?: number): AttemptOutcome => ({ kind: 'response', status, retryAfterMs });

describe('decideAfterAttempt', () => {
  describe('When the receiver answers 2xx', () => {
    it.each([200, 202, 204])('should ack and record delivered (%i)', (status) => {
      const d = decideAfterAttempt(response(status), 2, NOW, policy, middle);
      expect(d.disposition).toEqual({ kind: 'ack' });
      expect(d.state).toMatchObject({ state: 'delivered', attempts: 2, lastStatus: status });
    });
  });

  describe('When the receiver answers 410 Gone', () => {
    it('should stop at once: term, failed', () => {
      const d = decideAfterAttempt(response(410), 1, NOW, policy, middle);
      expect(d.disposition).toEqual({ kind: 'term' });
      expect(d.state).toMatchObject({ state: 'failed', attempts: 1, lastError: 'gone' });
    });
  });

  describe('When an attempt fails before the schedule runs out', () => {
    it.each<[string, AttemptOutcome]>([
      ['a 500', response(500)],
      ['a 302 (redirects are failures)', response(302)],
      ['a 400', response(400)],
      ['a timeout', { kind: 'timeout' }],
      ['a refused connection', { kind: 'connection_failed' }],
      ['a refused target', { kind: 'target_not_allowed' }],
    ])('should nak with the scheduled delay after %s', (_label, outcome) => {
      const attempts = [1, 2, 3].map((n) => decideAfterAttempt(outcome, n, NOW, policy, middle));
      expect(attempts.map((d) => d.disposition)).toEqual([
        { kind: 'nak', delayMs: 5_000 },
        { kind: 'nak', delayMs: 30_000 },
        { kind: 'nak', delayMs: 120_000 },
      ]);
      expect(attempts[0]!.state).toMatchObject({ state: 'pending', attempts: 1, nextAttemptUnixMs: NOW + 5_000 });
    });
  });

  describe('When the last attempt of the schedule fails', () => {
    it('should term and record failed (schedule length + 1 attempts in all)', () => {
      const d = decideAfterAttempt(response(503), policy.scheduleMs.length + 1, NOW, policy, middle);
      expect(d.disposition).toEqual({ kind: 'term' });
      expect(d.state).toMatchObject({ state: 'failed', attempts: 4, lastStatus: 503, lastError: 'http_status' });
    });
  });

  describe('When the receiver asks for more time with Retry-After', () => {
    it('should wait at least that long, capped at the maximum', () => {
      expect(decideAfterAttempt(response(503, 120_000), 1, NOW, policy, middle).disposition).toEqual({ kind: 'nak', delayMs: 120_000 });
      expect(decideAfterAttempt(response(429, 1_000), 1, NOW, policy, middle).disposition).toEqual({ kind: 'nak', delayMs: 5_000 });
      expect(decideAfterAttempt(response(503, 10 * 86_400_000), 1, NOW, policy, middle).disposition).toEqual({
        kind: 'nak',
        delayMs: policy.maxDelayMs,
      });
    });
  });

  describe('When jitter applies', () => {
    it('should spread the delay within ±jitter', () => {
      expect(decideAfterAttempt(response(500), 2, NOW, policy, () => 0).disposition).toEqual({ kind: 'nak', delayMs: 27_000 });
      expect(decideAfterAttempt(response(500), 2, NOW, policy, () => 1).disposition).toEqual({ kind: 'nak', delayMs: 33_000 });
    });
  });
});
