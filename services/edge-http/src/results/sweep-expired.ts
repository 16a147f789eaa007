import { RENDER_PRODUCERS } from '@app/render-contracts';
import type { CacheIndex, JobPublisher, ResultFiles, RenderStatusStore } from './ports.js';
import type { Clock } from '../application/ports.js';
import { isStuck } from './render-record.js';

/** Objects written without expiry metadata (older versions) are kept this long after their write. */
const UNLABELLED_OBJECT_TTL_MS = 24 * 60 * 60 * 1000;

export interface SweepReport {
  files: number;
  cacheEntries: number;
  stuckRenders: number;
}

/**
 * Expiry that JetStream 2.9 cannot do per message: removes expired result files and cache entries,
 * and fails asynchronous renders whose renderer is gone (long past their deadline), announcing the
 * failure like any finished render so its reservation is released and its webhook goes out.
 * Idempotent: every edge replica may run it.
 */
export function sweepExpired(deps: {
  files: ResultFiles;
  index: CacheIndex;
  statuses: RenderStatusStore;
  jobs: JobPublisher;
  clock: Clock;
  stuckGraceMs: number;
}) {
  return async (): Promise<SweepReport> => {
    const nowMs = deps.clock.now().getTime();
    const report: SweepReport = { files: 0, cacheEntries: 0, stuckRenders: 0 };
    for (const { objectName, file, mtimeMs } of await deps.files.list()) {
      const expired = file ? file.expiresUnixMs <= nowMs : mtimeMs + UNLABELLED_OBJECT_TTL_MS <= nowMs;
      if (!expired) continue;
      await deps.files.remove(objectName).catch(() => undefined);
      report.files++;
    }
    for await (const { key, entry } of deps.index.list()) {
      if (entry.expiresUnixMs > nowMs) continue;
      await deps.index.remove(key).catch(() => undefined);
      report.cacheEntries++;
    }
    for await (const r of deps.statuses.list()) {
      if (!isStuck(r, nowMs, deps.stuckGraceMs)) continue;
      await deps.jobs.announce({
        job_id: r.id,
        account_id: r.accountId,
        operation: r.operation,
        status: 'failed',
        error: { code: 'render_timeout', message: 'The render did not finish in time.', details: [] },
        started_unix_ms: r.startedMs ?? nowMs,
        finished_unix_ms: nowMs,
        origin: 'api',
        producer: RENDER_PRODUCERS.edgeWatchdog,
        reservation_id: r.reservationId,
        async: true,
        created_unix_ms: r.createdMs,
        format: r.format,
        webhook_url: r.webhookUrl,
        webhook_signed: r.webhookSigned,
      }, 'abandoned');
      report.stuckRenders++;
    }
    return report;
  };
}
