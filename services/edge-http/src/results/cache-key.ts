import { createHash } from 'node:crypto';
import type { RenderParams } from '@app/proto/render';

/** Parameters that do not change the output (decisions: Cache). access_key and signature never reach RenderParams. */
const NOT_IN_KEY: ReadonlySet<string> = new Set(['async', 'webhook_url', 'webhook_signed', 'cache', 'cache_ttl']);

export const DEFAULT_CACHE_TTL_SECONDS = 604_800;

/**
 * The cache key of a render: SHA-256 over the account id, the operation and every other validated
 * parameter (defaults applied, so `jpg` and `jpeg`, or an explicit default and its absence, share a key),
 * in a canonical order. An account never reaches another's entries.
 */
export function cacheKeyOf(accountId: string, operation: string, params: RenderParams): string {
  const canonical: [string, unknown][] = Object.entries(params)
    .filter(([name, value]) => !NOT_IN_KEY.has(name) && value !== undefined && !(Array.isArray(value) && value.length === 0))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify({ v: 1, accountId, operation, params: canonical })).digest('hex');
}

/**
 * `cacheKeyOf`, remembered per parameters object (and account and operation): validated parameters are
 * shared by identical requests, so a repeated request hashes nothing.
 */
export function rememberedCacheKeys(): typeof cacheKeyOf {
  const byParams = new WeakMap<RenderParams, Map<string, string>>();
  return (accountId, operation, params) => {
    let keys = byParams.get(params);
    if (!keys) byParams.set(params, (keys = new Map()));
    const id = `${operation} ${accountId}`;
    let key = keys.get(id);
    if (key === undefined) keys.set(id, (key = cacheKeyOf(accountId, operation, params)));
    return key;
  };
}
