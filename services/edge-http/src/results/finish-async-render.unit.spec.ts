import { describe, expect, it } from 'vitest';
import { RenderFinished } from '@app/proto/render';
import { fakeFiles, fakeIndex, fakeStatuses } from './testing/fakes.js';
import { finishAsyncRender } from './finish-async-render.js';
import { renderCache } from './render-cache.js';

function setup() {
  const statuses = fakeStatuses();
  const index = fakeIndex();
  const finish = finishAsyncRender({ statuses, cache: renderCache({ index, files: fakeFiles() }) });
  void statuses.create({ id: 'r1', accountId: 'acc', operation: 'pdf', format: 'pdf', status: 'queued', createdMs: 1, deadlineMs: 10 });
  return { finish, statuses, index };
}

const event = (over: Partial<RenderFinished>) =>
  RenderFinished.fromPartial({
    job_id: 'r1',
    account_id: 'acc',
    status: 'succeeded',
    origin: 'api',
    async: true,
    reservation_id: 'res-1',
    finished_unix_ms: 5,
    result: { object_name: 'obj', size: 9, expires_unix_ms: 99 },
    ...over,
  });

describe('finishAsyncRender', () => {
  describe('When an async render succeeds', () => {
    it('should record it succeeded', async () => {
      const { finish, statuses } = setup();
      await finish.finished(event({}));
      expect(statuses.records.get('r1')).toMatchObject({ status: 'succeeded', file: 'obj' });
    });
  });

  describe('When it fails', () => {
    it('should record the error', async () => {
      const { finish, statuses } = setup();
      await finish.finished(event({ status: 'failed', result: undefined, error: { code: 'render_timeout', message: 'late' } }));
      expect(statuses.records.get('r1')).toMatchObject({ status: 'failed', error: { code: 'render_timeout' } });
    });
  });

  describe('When it was a cached request', () => {
    it('should index the file under the cache key', async () => {
      const { finish, index } = setup();
      await finish.finished(event({ placement: { object_name: 'obj', ttl_ms: 1_000, cache_key: 'k1' } }));
      expect(index.entries.get('k1')).toEqual({ accountId: 'acc', objectName: 'obj', expiresUnixMs: 99 });
    });
  });

  describe('When the event is a synchronous render or a task run', () => {
    it('should leave it alone', async () => {
      const { finish, statuses } = setup();
      await finish.finished(event({ async: false }));
      await finish.finished(event({ origin: 'task', task_id: '3' }));
      expect(statuses.records.get('r1')!.status).toBe('queued');
    });
  });

  describe('When a renderer starts it', () => {
    it('should record it running', async () => {
      const { finish, statuses } = setup();
      await finish.started({ job_id: 'r1', account_id: 'acc', started_unix_ms: 3, renderer_id: 'x' });
      expect(statuses.records.get('r1')).toMatchObject({ status: 'running', startedMs: 3 });
    });
  });
});
