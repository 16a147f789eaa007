import { describe, expect, it } from 'vitest';
import { fakeFiles, fakeIndex, fakeJobs, fakeStatuses, storedFile } from './testing/fakes.js';
import { sweepExpired } from './sweep-expired.js';

const NOW = 1_800_000_000_000;

describe('sweepExpired', () => {
  describe('When files, cache entries and renders have expired or are stuck', () => {
    it('should remove the expired, keep the live, and fail the stuck render with its webhook', async () => {
      const files = fakeFiles();
      const index = fakeIndex();
      const statuses = fakeStatuses();
      const jobs = fakeJobs();
      const body = new Uint8Array([1]);
      files.files.set('old', { file: storedFile({ objectName: 'old', expiresUnixMs: NOW - 1 }), body, mtimeMs: NOW - 10 });
      files.files.set('live', { file: storedFile({ objectName: 'live', expiresUnixMs: NOW + 1_000 }), body, mtimeMs: NOW - 10 });
      files.files.set('unlabelled', { file: undefined as never, body, mtimeMs: NOW - 25 * 3_600_000 });
      await index.put('k-old', { accountId: 'a', objectName: 'old', expiresUnixMs: NOW - 1 });
      await index.put('k-live', { accountId: 'a', objectName: 'live', expiresUnixMs: NOW + 1_000 });
      await statuses.create({
        id: 'stuck',
        accountId: 'a',
        operation: 'pdf',
        format: 'pdf',
        status: 'running',
        createdMs: NOW - 600_000,
        deadlineMs: NOW - 120_000,
        reservationId: 'res',
        webhookUrl: 'https://hooks.example/x',
      });
      await statuses.create({ id: 'fresh', accountId: 'a', operation: 'pdf', format: 'pdf', status: 'queued', createdMs: NOW, deadlineMs: NOW + 90_000 });

      const report = await sweepExpired({ files, index, statuses, jobs, clock: { now: () => new Date(NOW) }, stuckGraceMs: 60_000 })();

      expect(report).toEqual({ files: 2, cacheEntries: 1, stuckRenders: 1 });
      expect([...files.files.keys()]).toEqual(['live']);
      expect([...index.entries.keys()]).toEqual(['k-live']);
      expect(jobs.announced).toHaveLength(1);
      expect(jobs.announcedKinds).toEqual(['abandoned']);
      expect(jobs.announced[0]).toMatchObject({
        job_id: 'stuck',
        status: 'failed',
        error: { code: 'render_timeout' },
        reservation_id: 'res',
        webhook_url: 'https://hooks.example/x',
        async: true,
        origin: 'api',
        producer: 'edge-watchdog',
      });
      // No renderer rendered it: the event names its producer, never a renderer.
      expect(jobs.announced[0]!.renderer_id ?? '').toBe('');
    });
  });
});
