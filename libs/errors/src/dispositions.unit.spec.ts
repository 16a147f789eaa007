import { describe, expect, it } from 'vitest';
import { AppError } from './app-error.js';
import { ERROR_CODES, type ErrorCode } from './codes.js';
import { dispositionAfter, isRetryable } from './dispositions.js';

const error = (code: ErrorCode, retryAfterSeconds?: number) => new AppError(code, code, retryAfterSeconds === undefined ? {} : { retryAfterSeconds });
const FIRST = { isLast: false };
const LAST = { isLast: true };

describe('dispositionAfter (the error table settles every consumer)', () => {
  describe.each(Object.entries(ERROR_CODES) as [ErrorCode, (typeof ERROR_CODES)[ErrorCode]][])('When handling failed with %s', (code, spec) => {
    it(`should ${spec.ack === 'nak' ? 'deliver it again while deliveries remain, then be done' : `be done (${spec.ack})`}`, () => {
      expect(dispositionAfter(error(code), FIRST, 700)).toEqual(spec.ack === 'nak' ? { kind: 'nak', delayMs: 700 } : { kind: spec.ack });
      expect(dispositionAfter(error(code), LAST, 700)).toEqual({ kind: spec.ack === 'term' ? 'term' : 'ack' });
      expect(isRetryable(error(code))).toBe(spec.ack === 'nak');
    });
  });

  describe('When the error carries a Retry-After', () => {
    it('should deliver it again after that, not after the default delay', () => {
      expect(dispositionAfter(error('rate_limited', 42), FIRST, 1_000)).toEqual({ kind: 'nak', delayMs: 42_000 });
    });
  });

  describe('When the error is a fault the table does not know', () => {
    it('should be retried like internal_error', () => {
      expect(dispositionAfter(new TypeError('x is undefined'), FIRST, 500)).toEqual({ kind: 'nak', delayMs: 500 });
      expect(dispositionAfter(new TypeError('x is undefined'), LAST, 500)).toEqual({ kind: 'ack' });
    });
  });

  describe('When the table is read', () => {
    it('should say retry for rate_limited and service_unavailable, and not for quota_exceeded', () => {
      expect([ERROR_CODES.rate_limited.ack, ERROR_CODES.service_unavailable.ack, ERROR_CODES.quota_exceeded.ack]).toEqual(['nak', 'nak', 'term']);
    });
  });
});
