import type { RenderFinished, RenderStarted } from '@app/proto/render';
import type { RenderStatusStore } from './ports.js';
import type { RenderCache } from './render-cache.js';
import { recordFinished, recordStarted } from './render-record.js';

/**
 * Folds render events into the status of asynchronous API renders, and indexes the cache entry a
 * finished render made. (Its quota reservation is auth-quota's to settle, from the same event; task
 * runs are the scheduler's.)
 */
export function finishAsyncRender(deps: { statuses: RenderStatusStore; cache: RenderCache }) {
  const ours = (e: { async?: boolean; origin?: string }) => e.async === true && e.origin === 'api';
  return {
    async started(e: RenderStarted): Promise<void> {
      await deps.statuses.update(e.job_id, (r) => recordStarted(r, e.started_unix_ms));
    },
    async finished(e: RenderFinished): Promise<void> {
      if (!ours(e)) return;
      const key = e.placement?.cache_key;
      if (e.status === 'succeeded' && e.result && key) {
        await deps.cache.remember(key, e.account_id, e.result.object_name, e.result.expires_unix_ms);
      }
      await deps.statuses.update(e.job_id, (r) => recordFinished(r, e));
    },
  };
}

export type FinishAsyncRender = ReturnType<typeof finishAsyncRender>;
