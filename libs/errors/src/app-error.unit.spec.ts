import { describe, expect, it } from 'vitest';
import { AppError, errors, ValidationError } from './index.js';

const frames = (err: Error) => (err.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).length;

describe('AppError', () => {
  describe('When the error is a refusal (4xx)', () => {
    it('should carry its code and message but no stack frames', () => {
      const err = errors.accessKeyInvalid();
      expect(err.code).toBe('access_key_invalid');
      expect(err.httpStatus).toBe(401);
      expect(err.message).toBe('Invalid access key');
      expect(frames(err)).toBe(0);
      expect(frames(new ValidationError([{ parameter: 'url', message: 'is required' }]))).toBe(0);
    });
  });

  describe('When the error is a fault (5xx)', () => {
    it('should keep its stack for the logs', () => {
      const err = new AppError('internal_error', 'An internal error occurred.');
      expect(err.httpStatus).toBe(500);
      expect(frames(err)).toBeGreaterThan(0);
    });
  });

  describe('When refusals have been created', () => {
    it('should leave the stack trace limit of other errors as it was', () => {
      const before = Error.stackTraceLimit;
      errors.rateLimited(3);
      expect(Error.stackTraceLimit).toBe(before);
      expect(frames(new Error('plain'))).toBeGreaterThan(0);
    });
  });
});
