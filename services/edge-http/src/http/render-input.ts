import { LRUCache } from 'lru-cache';
import { validateRenderParams, type Operation, type ValidatedRender } from '@app/render-params';
import type { RenderParams } from '@app/proto/render';
import { rawQueryOf, type RequestParts } from '../web/index.js';

/** Inputs longer than this are validated every time (an `html` body would crowd the memory out). */
export const MAX_REMEMBERED_INPUT = 4_096;

/**
 * Validation of a render request's parameters, remembered per operation and raw input (the JSON body as
 * sent, or the query string): validation is a pure function of them, and identical requests (cache hits,
 * retries) are the common case under load. An invalid input is never remembered (it throws), nor one
 * that carries its access key inside (no key is kept in memory). The validated parameters are shared
 * between requests: nobody may change them.
 */
export function rememberedValidation(opts: { maxEntries: number }) {
  const memo = new LRUCache<string, ValidatedRender>({ max: opts.maxEntries });
  /** `raw`: the input as sent (`rawInputOf`), by which it is remembered; undefined: not remembered. */
  return (operation: Operation, raw: string | undefined, input: Record<string, unknown>): ValidatedRender => {
    if (raw === undefined || raw.length > MAX_REMEMBERED_INPUT || input.access_key !== undefined) return validateRenderParams(operation, input);
    const key = `${operation}\n${raw}`;
    const known = memo.get(key);
    if (known) return known;
    const validated = validateRenderParams(operation, input);
    memo.set(key, validated);
    return validated;
  };
}

export type RememberedValidation = ReturnType<typeof rememberedValidation>;

/** A render request's input as sent: the query string (GET, HEAD), the JSON body's bytes otherwise. */
export const rawInputOf = (request: RequestParts): string | undefined =>
  request.method === 'GET' || request.method === 'HEAD' ? rawQueryOf(request) : request.rawBody?.toString('latin1');

/** A synchronous render asking for the cache: a hit this edge holds answers it at once. */
export const isSyncCached = (params: RenderParams): boolean => Boolean(params.cache && !params.async && !params.webhook_url);
