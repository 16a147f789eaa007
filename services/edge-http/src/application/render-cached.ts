import { randomBytes } from 'node:crypto';
import type { RenderParams } from '@app/proto/render';
import type { Operation } from '@app/render-params';
import type { Clock } from './ports.js';
import type { RenderCache } from './render-cache.js';
import type { RenderOutcome, RenderSync } from './render-sync.js';
import { DEFAULT_CACHE_TTL_SECONDS, cacheKeyOf } from './cache-key.js';

/** An unguessable object name: 256 random bits (the capability of a file URL). */
export const newFileName = () => randomBytes(32).toString('base64url');

export type CachedOutcome = RenderOutcome & { cache: 'HIT' | 'MISS' };

/**
 * A synchronous render with `cache=true`: a live entry of this account and key answers at once (HIT);
 * otherwise the render is kept as a file for cache_ttl and indexed before the answer (MISS), so the
 * next identical request, on any edge replica, is a HIT.
 */
export function renderCached(deps: { renderSync: RenderSync; cache: RenderCache; clock: Clock; newFileName?: () => string }) {
  const fileName = deps.newFileName ?? newFileName;
  return async (input: {
    accountId: string;
    operation: Operation;
    params: RenderParams;
    /** Runs on a miss, before the render (the quota a hit would not have cost). */
    beforeRender?: () => Promise<void>;
  }): Promise<CachedOutcome> => {
    const key = cacheKeyOf(input.accountId, input.operation, input.params);
    const hit = await deps.cache.read(input.accountId, key, deps.clock.now().getTime());
    if (hit) {
      return {
        body: hit.body,
        contentType: hit.file.contentType,
        extension: hit.file.extension,
        headers: hit.file.headers,
        kept: { objectName: hit.file.objectName, expiresUnixMs: hit.file.expiresUnixMs },
        cache: 'HIT',
      };
    }
    await input.beforeRender?.();
    const ttlMs = (input.params.cache_ttl ?? DEFAULT_CACHE_TTL_SECONDS) * 1000;
    const { accountId, operation, params } = input;
    const outcome = await deps.renderSync({ accountId, operation, params, placement: { object_name: fileName(), ttl_ms: ttlMs, cache_key: key } });
    if (outcome.kept) await deps.cache.remember(key, input.accountId, outcome.kept.objectName, outcome.kept.expiresUnixMs);
    return { ...outcome, cache: 'MISS' };
  };
}

export type RenderCached = ReturnType<typeof renderCached>;
