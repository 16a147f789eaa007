import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { errors } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import { renderBudgetMs, timeoutSecondsOf, type Operation } from '@app/render-params';
import type { Clock } from '../application/ports.js';
import type { CacheHit, RenderCache } from './render-cache.js';
import type { RenderOutcome, RenderSync } from '../application/render-sync.js';
import { DEFAULT_CACHE_TTL_SECONDS, rememberedCacheKeys } from './cache-key.js';

/** An unguessable object name: 256 random bits (the capability of a file URL). */
export const newFileName = () => randomBytes(32).toString('base64url');

export type CachedOutcome = RenderOutcome & { cache: 'HIT' | 'MISS' };

export interface CachedRenderInput {
  accountId: string;
  operation: Operation;
  params: RenderParams;
  /** Runs on a miss, before the render: reserves the quota a hit would not have cost; the job carries it. */
  beforeRender?: () => Promise<string | undefined>;
}

const asHit = (hit: CacheHit): CachedOutcome => ({
  body: hit.body,
  contentType: hit.file.contentType,
  extension: hit.file.extension,
  headers: hit.file.headers,
  kept: { objectName: hit.file.objectName, expiresUnixMs: hit.file.expiresUnixMs },
  cache: 'HIT',
});

/**
 * A synchronous render with `cache=true`: a live entry of this account and key answers at once (HIT);
 * otherwise the render is kept as a file for cache_ttl and indexed before the answer (MISS), so the
 * next identical request, on any edge replica, is a HIT.
 *
 * Identical requests in flight at once render once. On one edge they share the render in progress; across
 * edges the first to claim the key in the index renders, and the others wait for its entry (polling every
 * `pollMs`). Those that waited answer a HIT: no render, no quota. If the render fails, its claim is dropped
 * and a request still waiting elsewhere claims the key and renders it itself.
 */
export function renderCached(deps: {
  renderSync: RenderSync;
  cache: RenderCache;
  clock: Clock;
  /** Past the render's own timeout, how long a claim holds (queueing, redelivery). */
  waitMarginMs: number;
  pollMs?: number;
  newFileName?: () => string;
  newToken?: () => string;
}) {
  const fileName = deps.newFileName ?? newFileName;
  const newToken = deps.newToken ?? randomUUID;
  const pollMs = deps.pollMs ?? 50;
  const { cache } = deps;
  const now = () => deps.clock.now().getTime();
  const cacheKeyOf = rememberedCacheKeys();
  /** Renders of this edge in progress, by cache key (the key includes the account). */
  const inFlight = new Map<string, Promise<CachedOutcome>>();

  /** Claims the key and renders it, or waits for the edge that claimed it. */
  async function renderOnce(input: CachedRenderInput, key: string): Promise<CachedOutcome> {
    const { accountId, operation, params } = input;
    const timeoutSeconds = timeoutSecondsOf(params);
    // A claim lasts as long as the render may (a screencast records on top of its timeout).
    const untilUnixMs = now() + renderBudgetMs(operation, params) + deps.waitMarginMs;
    for (;;) {
      const claim = { accountId, untilUnixMs, token: newToken() };
      if (await cache.claim(key, claim, now())) {
        try {
          const reservationId = await input.beforeRender?.();
          const ttlMs = (params.cache_ttl ?? DEFAULT_CACHE_TTL_SECONDS) * 1000;
          const placement = { object_name: fileName(), ttl_ms: ttlMs, cache_key: key };
          const outcome = await deps.renderSync({ accountId, operation, params, placement, reservationId });
          if (outcome.kept) await cache.remember(key, accountId, outcome.kept.objectName, outcome.kept.expiresUnixMs);
          else await cache.unclaim(key, claim);
          return { ...outcome, cache: 'MISS' };
        } catch (err) {
          await cache.unclaim(key, claim).catch(() => undefined);
          throw err;
        }
      }
      // Rendered elsewhere right now: its entry answers once written.
      await sleep(pollMs);
      const hit = await cache.read(accountId, key, now());
      if (hit) return asHit(hit);
      if (now() > untilUnixMs) throw errors.renderTimeout(timeoutSeconds);
    }
  }

  const render = async (input: CachedRenderInput): Promise<CachedOutcome> => {
    const key = cacheKeyOf(input.accountId, input.operation, input.params);
    const hit = await cache.read(input.accountId, key, now());
    if (hit) return asHit(hit);
    const shared = inFlight.get(key);
    if (shared) return { ...(await shared), cache: 'HIT' };
    const mine = renderOnce(input, key);
    inFlight.set(key, mine);
    try {
      return await mine;
    } finally {
      inFlight.delete(key);
    }
  };
  /** The hit this edge can answer from memory at once (no call, no promise), or undefined: then `render`. */
  const known = (input: Pick<CachedRenderInput, 'accountId' | 'operation' | 'params'>): CachedOutcome | undefined => {
    const hit = cache.known(input.accountId, cacheKeyOf(input.accountId, input.operation, input.params), now());
    return hit && asHit(hit);
  };
  return Object.assign(render, { known });
}

export type RenderCached = ReturnType<typeof renderCached>;
