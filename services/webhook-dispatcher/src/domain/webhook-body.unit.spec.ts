import { describe, expect, it } from 'vitest';
import { RenderFinished } from '@app/proto/render';
import { webhookBody } from './webhook-body.js';

const finished = (over: Partial<RenderFinished>) =>
  RenderFinished.fromPartial({
    job_id: 'r1',
    account_id: 'acc',
    operation: 'screenshot',
    status: 'succeeded',
    created_unix_ms: 1_800_000_000_500,
    started_unix_ms: 1_800_000_001_000,
    finished_unix_ms: 1_800_000_002_000,
    origin: 'api',
    format: 'png',
    files_base_url: 'https://api.example/v1/files/',
    placement: { object_name: 'F'.repeat(43), ttl_ms: 86_400_000 },
    result: { object_name: 'F'.repeat(43), content_type: 'image/png', extension: 'png', size: 1234, headers: {}, expires_unix_ms: 1_800_086_402_000 },
    ...over,
  });

describe('webhookBody', () => {
  describe('When an async render succeeded', () => {
    it('should give the decided fields with the file URL and unix seconds', () => {
      expect(webhookBody(finished({}), undefined)).toEqual({
        id: 'r1',
        status: 'succeeded',
        file: `https://api.example/v1/files/${'F'.repeat(43)}`,
        expires: 1_800_086_402,
        created: 1_800_000_000,
        format: 'png',
        size: 1234,
      });
    });
  });

  describe('When the render failed', () => {
    it('should carry the error and no file', () => {
      const body = webhookBody(finished({ status: 'failed', result: undefined, error: { code: 'render_timeout', message: 'late' } }), undefined);
      expect(body).toMatchObject({ status: 'failed', file: null, expires: null, size: null, error: { code: 'render_timeout', message: 'late' } });
    });
  });

  describe('When it is a task run without a files base URL in the event', () => {
    it('should add task_id and name the file with the configured base', () => {
      const body = webhookBody(finished({ origin: 'task', task_id: '42', files_base_url: undefined }), 'https://cfg.example/v1/files/');
      expect(body.task_id).toBe('42');
      expect(body.file).toBe(`https://cfg.example/v1/files/${'F'.repeat(43)}`);
    });
  });

  describe('When the result was not kept as a file', () => {
    it('should give no file URL (a transient result is never served)', () => {
      expect(webhookBody(finished({ placement: undefined }), 'https://cfg.example/v1/files/').file).toBeNull();
    });
  });
});
