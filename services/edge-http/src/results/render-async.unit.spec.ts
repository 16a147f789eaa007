import { describe, expect, it, vi } from 'vitest';
import { AppError, errors } from '@app/errors';
import { validateRenderParams } from '@app/render-params';
import { fakeFiles, fakeIndex, fakeJobs, fakeStatuses, storedFile } from './testing/fakes.js';
import { cacheKeyOf } from './cache-key.js';
import { renderCache } from './render-cache.js';
import { ASYNC_FILE_TTL_MS, renderAsync } from './render-async.js';

const NOW = 1_800_000_000_000;

function setup(o: { webhookRefused?: boolean; publishFails?: boolean } = {}) {
  const statuses = fakeStatuses();
  const jobs = fakeJobs();
  if (o.publishFails) jobs.submit = async () => Promise.reject(new Error('nats down'));
  const index = fakeIndex();
  const files = fakeFiles();
  const accept = renderAsync({
    jobs,
    statuses,
    cache: renderCache({ index, files }),
    guard: { check: async () => undefined },
    webhookGuard: {
      check: async () => {
        if (o.webhookRefused) throw errors.targetNotAllowed('webhook_url', 'the URL scheme must be https');
      },
    },
    clock: { now: () => new Date(NOW) },
    newId: () => 'render-1',
    queueWaitMs: 60_000,
  });
  return { accept, statuses, jobs, index, files };
}

const input = (params: Record<string, unknown>) => ({
  accountId: 'acc_1',
  operation: 'screenshot' as const,
  params: validateRenderParams('screenshot', { url: 'https://example.com/', async: true, ...params }).params,
  reserve: vi.fn(async () => 'res-1'),
  filesBaseUrl: 'https://api.example/v1/files/',
});

describe('renderAsync', () => {
  describe('When an async render is accepted', () => {
    it('should record it queued and publish a job carrying the reservation and an unguessable file name', async () => {
      const { accept, statuses, jobs } = setup();
      const accepted = await accept(input({ webhook_url: 'https://hooks.example/x' }));
      expect(accepted).toEqual({ id: 'render-1', status: 'queued', createdMs: NOW });
      expect(statuses.records.get('render-1')).toMatchObject({
        status: 'queued',
        accountId: 'acc_1',
        reservationId: 'res-1',
        webhookUrl: 'https://hooks.example/x',
        deadlineMs: NOW + 60_000 + 30_000,
      });
      const [job] = jobs.submitted;
      expect(job).toMatchObject({ job_id: 'render-1', reservation_id: 'res-1', origin: 'api', files_base_url: 'https://api.example/v1/files/' });
      expect(job!.placement!.object_name).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(job!.placement!.ttl_ms).toBe(ASYNC_FILE_TTL_MS);
      expect(job!.placement!.cache_key).toBeUndefined();
    });
  });

  describe('When two renders are accepted', () => {
    it('should give them different file names', async () => {
      const a = setup();
      const b = setup();
      await a.accept(input({}));
      await b.accept(input({}));
      expect(a.jobs.submitted[0]!.placement!.object_name).not.toBe(b.jobs.submitted[0]!.placement!.object_name);
    });
  });

  describe('When it asks for the cache and misses', () => {
    it('should keep the file for cache_ttl under the cache key', async () => {
      const { accept, jobs } = setup();
      const accepted = await accept(input({ cache: true, cache_ttl: 120 }));
      expect(accepted.cache).toBe('MISS');
      expect(jobs.submitted[0]!.placement).toMatchObject({ ttl_ms: 120_000, cache_key: expect.stringMatching(/^[0-9a-f]{64}$/) });
    });
  });

  describe('When it asks for the cache and hits', () => {
    it('should finish at once without reserving quota and announce the finish for the webhook', async () => {
      const { accept, statuses, jobs, index, files } = setup();
      const i = input({ cache: true, webhook_url: 'https://hooks.example/x' });
      const key = cacheKeyOf('acc_1', 'screenshot', i.params);
      const file = storedFile({ expiresUnixMs: NOW + 5_000 });
      files.files.set(file.objectName, { file, body: new Uint8Array([1, 2, 3]), mtimeMs: NOW });
      await index.put(key, { accountId: 'acc_1', objectName: file.objectName, expiresUnixMs: file.expiresUnixMs });
      const accepted = await accept(i);
      expect(accepted).toMatchObject({ status: 'succeeded', cache: 'HIT' });
      expect(statuses.records.get('render-1')).toMatchObject({ status: 'succeeded', file: file.objectName, expiresMs: NOW + 5_000 });
      expect(i.reserve).not.toHaveBeenCalled();
      expect(jobs.submitted).toHaveLength(0);
      expect(jobs.announced[0]).toMatchObject({ job_id: 'render-1', status: 'succeeded', webhook_url: 'https://hooks.example/x', async: true });
      expect(jobs.announced[0]!.reservation_id).toBeUndefined();
      expect(jobs.announcedKinds).toEqual(['cache-hit']);
      // The edge answered it from its cache: the event names that producer, never a renderer.
      expect(jobs.announced[0]).toMatchObject({ producer: 'edge-cache' });
      expect(jobs.announced[0]!.renderer_id ?? '').toBe('');
      // The webhook names the cached file.
      expect(jobs.announced[0]).toMatchObject({ placement: { object_name: file.objectName }, files_base_url: 'https://api.example/v1/files/' });
    });
  });

  describe('When the webhook_url is refused', () => {
    it('should answer the refusal before reserving anything and publish nothing', async () => {
      const { accept, jobs, statuses } = setup({ webhookRefused: true });
      const i = input({ webhook_url: 'http://hooks.example/x' });
      await expect(accept(i)).rejects.toBeInstanceOf(AppError);
      expect(i.reserve).not.toHaveBeenCalled();
      expect(jobs.submitted).toHaveLength(0);
      expect(statuses.records.size).toBe(0);
    });
  });

  describe('When the job cannot be published', () => {
    it('should remove the record and fail (the request then announces its reservation ended without a job)', async () => {
      const { accept, statuses } = setup({ publishFails: true });
      await expect(accept(input({}))).rejects.toThrow('nats down');
      expect(statuses.records.size).toBe(0);
    });
  });
});
