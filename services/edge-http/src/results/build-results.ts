import { randomUUID } from 'node:crypto';
import type { Logger } from '@app/logging';
import { kvLease, type JetStreamClient, type KV, type ObjectStore, type WholeObjectRead } from '@app/messaging';
import { EXPIRY_SWEEP_LEASE_KEY, type RenderJobPublisher } from '@app/render-contracts';
import type { EdgeConfig } from '../config.js';
import type { Clock, TargetGuard } from '../application/ports.js';
import type { RenderSync } from '../application/render-sync.js';
import { renderCache } from './render-cache.js';
import { renderCached } from './render-cached.js';
import { renderAsync } from './render-async.js';
import { getRenderStatus } from './render-status.js';
import { openResultFile } from './result-file.js';
import { finishAsyncRender } from './finish-async-render.js';
import { sweepExpired } from './sweep-expired.js';
import { natsJobPublisher } from './adapters/nats-job-publisher.js';
import { kvRenderStatus } from './adapters/kv-render-status.js';
import { kvCacheIndex } from './adapters/kv-cache-index.js';
import { memoizedCacheIndex } from './adapters/memoized-cache-index.js';
import { objectStoreFiles } from './adapters/object-store-files.js';
import { memoizedFiles } from './adapters/memoized-files.js';
import { netGuardWebhook } from './adapters/net-guard-webhook.js';
import { renderEventsConsumer } from './entrypoints/render-events.consumer.js';
import { expirySweeper } from './entrypoints/expiry-sweeper.js';
import type { AsyncHttpDeps } from './async-http-deps.js';
import { indexedRenderStatus, kvRecentRenders } from './recent-renders.js';

/** A render queued or running this long past its deadline is failed by the watchdog. */
const STUCK_GRACE_MS = 60_000;

/**
 * The results module: async renders, their status, result files, the render cache and the expiry
 * sweeper, wired together (called by the edge's composition root, app.ts).
 */
export function buildResults(d: {
  config: EdgeConfig;
  logger: Logger;
  js: JetStreamClient;
  jobPublisher: RenderJobPublisher;
  clock: Clock;
  guard: TargetGuard;
  renderSync: RenderSync;
  objects: ObjectStore;
  readWhole: WholeObjectRead;
  statusKv: KV;
  cacheKv: KV;
}) {
  // Cache hits are served from memory when this edge has read the entry and the file before.
  const files = memoizedFiles(objectStoreFiles(d.objects, d.readWhole), { maxBytes: d.config.fileMemoryBytes });
  const index = memoizedCacheIndex(kvCacheIndex(d.cacheKv), { maxEntries: 100_000 });
  // Each account's latest async renders are indexed as they are created (the dashboard lists them).
  const recentRenders = kvRecentRenders(d.statusKv);
  const statuses = indexedRenderStatus(kvRenderStatus(d.statusKv), recentRenders, (err) =>
    d.logger.error({ err }, 'indexing a recent render failed'),
  );
  const jobs = natsJobPublisher(d.js, d.jobPublisher);
  const cache = renderCache({ index, files });

  const http: AsyncHttpDeps = {
    renderAsync: renderAsync({
      jobs,
      statuses,
      cache,
      guard: d.guard,
      webhookGuard: netGuardWebhook({ allowPrivate: d.config.allowPrivateTargets }),
      clock: d.clock,
      newId: randomUUID,
      queueWaitMs: d.config.asyncQueueWaitMs,
    }),
    renderCached: renderCached({ renderSync: d.renderSync, cache, clock: d.clock, waitMarginMs: d.config.renderWaitMarginMs }),
    getRenderStatus: getRenderStatus({ statuses, clock: d.clock }),
    openResultFile: openResultFile({ files, clock: d.clock }),
    publicUrl: d.config.publicUrl,
  };
  const consumer = renderEventsConsumer({ js: d.js, finish: finishAsyncRender({ statuses, cache }), logger: d.logger });
  const sweeper = expirySweeper({
    sweep: sweepExpired({ files, index, statuses, jobs, clock: d.clock, stuckGraceMs: STUCK_GRACE_MS }),
    // One edge replica sweeps at a time: the lease (two intervals long) is renewed by each of its sweeps.
    lease: kvLease(d.statusKv, EXPIRY_SWEEP_LEASE_KEY, { holder: randomUUID(), ttlMs: 2 * d.config.sweepIntervalMs }),
    intervalMs: d.config.sweepIntervalMs,
    logger: d.logger,
  });
  return {
    http,
    recentRenders,
    /** A webhook delivery's state by its id (a render's, or a monitor announcement's and its channels'). */
    deliveryState: (id: string) => statuses.webhookState(id),
    start() {
      consumer.start();
      sweeper.start();
    },
    async stop() {
      await sweeper.stop();
      await consumer.stop();
    },
  };
}
