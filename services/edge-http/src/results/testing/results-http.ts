import type { Clock } from '../../application/ports.js';
import type { RenderSync } from '../../application/render-sync.js';
import type { AsyncHttpDeps } from '../async-http-deps.js';
import { renderAsync } from '../render-async.js';
import { renderCache } from '../render-cache.js';
import { renderCached } from '../render-cached.js';
import { getRenderStatus } from '../render-status.js';
import { openResultFile } from '../result-file.js';
import { memoizedCacheIndex } from '../adapters/memoized-cache-index.js';
import { memoizedFiles } from '../adapters/memoized-files.js';
import { fakeFiles, fakeIndex, fakeJobs, fakeStatuses } from './fakes.js';

/**
 * The results module's HTTP face (async renders, statuses, files, the cache) over in-memory fakes of its
 * stores, with every target allowed: for tests of the routes that use it. The fakes are returned to look into.
 * With `heldInMemory`, the cache's entries and files read are held in memory as the edge holds them
 * (build-results.ts), so hits are `known`.
 */
export function resultsHttpOverFakes(d: { renderSync: RenderSync; clock: Clock; newId: () => string; queueWaitMs: number; waitMarginMs: number; heldInMemory?: boolean }) {
  const files = fakeFiles();
  const index = fakeIndex();
  const statuses = fakeStatuses();
  const jobs = fakeJobs();
  const cache = d.heldInMemory
    ? renderCache({ index: memoizedCacheIndex(index, { maxEntries: 1_000 }), files: memoizedFiles(files, { maxBytes: 1 << 24 }) })
    : renderCache({ index, files });
  const allowed = { check: async () => undefined };
  const http: AsyncHttpDeps = {
    renderAsync: renderAsync({ jobs, statuses, cache, guard: allowed, webhookGuard: allowed, clock: d.clock, newId: d.newId, queueWaitMs: d.queueWaitMs }),
    renderCached: renderCached({ renderSync: d.renderSync, cache, clock: d.clock, waitMarginMs: d.waitMarginMs }),
    getRenderStatus: getRenderStatus({ statuses, clock: d.clock }),
    openResultFile: openResultFile({ files, clock: d.clock }),
  };
  return { http, files, index, statuses, jobs };
}
