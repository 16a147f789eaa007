import { describe, expect, it } from 'vitest';
import { RenderFinished } from '@app/proto/render';
import { isStuck, recordFinished, recordStarted, type RenderRecord } from './render-record.js';

const queued: RenderRecord = {
  id: 'r1',
  accountId: 'acc',
  operation: 'screenshot',
  format: 'jpeg',
  status: 'queued',
  createdMs: 1_000,
  deadlineMs: 100_000,
};
const succeeded = RenderFinished.fromPartial({
  job_id: 'r1',
  status: 'succeeded',
  finished_unix_ms: 5_000,
  result: { object_name: 'file', size: 42, expires_unix_ms: 90_000 },
});
const failed = RenderFinished.fromPartial({ job_id: 'r1', status: 'failed', finished_unix_ms: 5_000, error: { code: 'render_timeout', message: 'late' } });

describe('render record', () => {
  describe('When a queued render starts', () => {
    it('should be running', () => {
      expect(recordStarted(queued, 2_000)).toMatchObject({ status: 'running', startedMs: 2_000 });
    });
  });
  describe('When a finished render is reported started late', () => {
    it('should not move back', () => {
      expect(recordStarted(recordFinished(queued, succeeded)!, 6_000)).toBeUndefined();
    });
  });
  describe('When the render succeeds', () => {
    it('should keep the file, expiry, size and finish time', () => {
      expect(recordFinished(queued, succeeded)).toMatchObject({ status: 'succeeded', file: 'file', expiresMs: 90_000, size: 42, finishedMs: 5_000 });
    });
  });
  describe('When the render fails', () => {
    it('should keep the error', () => {
      expect(recordFinished(queued, failed)).toMatchObject({ status: 'failed', error: { code: 'render_timeout', message: 'late' } });
    });
  });
  describe('When a second outcome arrives', () => {
    it('should keep the first', () => {
      expect(recordFinished(recordFinished(queued, failed)!, succeeded)).toBeUndefined();
    });
  });
  describe('When a render is still queued long past its deadline', () => {
    it('should be stuck only after the grace period', () => {
      expect(isStuck(queued, 100_500, 1_000)).toBe(false);
      expect(isStuck(queued, 101_001, 1_000)).toBe(true);
      expect(isStuck(recordFinished(queued, succeeded)!, 1e9, 1_000)).toBe(false);
    });
  });
});
