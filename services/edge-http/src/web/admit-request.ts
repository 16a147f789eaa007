import { isTrueParam, planRestrictedFeaturesOf } from '@app/render-params';
import type { AdmitRequest, RateLimitInfo, Settler } from '../application/ports.js';
import { accessKeyOf, inputOf, rawQueryOf, type RequestParts } from './access-key.js';

const EMPTY = new Uint8Array();

/**
 * A render that asks for the cache (synchronous or not) may be answered by a hit, which costs no quota:
 * its admission reserves none, and the route reserves a unit only when it renders (`reserveDeferredQuota`).
 */
function mayBeCacheHit(request: RequestParts): boolean {
  const input = inputOf(request);
  return Boolean(input && isTrueParam(input.cache));
}

/** Plan-restricted features a request asks for: its route's, and those of its parameters. */
export function featuresOf(request: RequestParts, routeFeature: string | undefined): string[] {
  const features: string[] = [];
  if (routeFeature) features.push(routeFeature);
  const input = inputOf(request);
  if (input) features.push(...planRestrictedFeaturesOf(input));
  return features;
}

/**
 * Who ends the reservation a request makes: an async render's job; any other request's answer (a
 * synchronous render, a task created).
 */
export function settlerOf(request: RequestParts, usage: AdmitRequest['usage']): Settler {
  return usage === 'render' && isTrueParam(inputOf(request)?.async) ? 'job' : 'answer';
}

/**
 * What admission is asked for a request that shows its access key (header, query or body) and perhaps
 * a signature: the same question whether Fastify's hook asks it or the edge's answer of known cache hits.
 */
export function admitRequestOf(request: RequestParts, usage: AdmitRequest['usage'], routeFeature: string | undefined): AdmitRequest {
  const signature = (request.query as Record<string, unknown> | undefined)?.signature;
  const bodySignature = request.headers['x-signature'];
  return {
    accessKey: accessKeyOf(request),
    usage,
    deferQuota: usage === 'render' && mayBeCacheHit(request),
    settledBy: settlerOf(request, usage),
    features: featuresOf(request, routeFeature),
    signature: typeof signature === 'string' ? signature : undefined,
    signedQuery: rawQueryOf(request),
    bodySignature: typeof bodySignature === 'string' ? bodySignature : undefined,
    // The body matters only to a body signature: auth-quota is not sent what it would not read.
    body: typeof bodySignature === 'string' ? (request.rawBody ?? EMPTY) : EMPTY,
  };
}

/** The account's rate limit as every admitted answer tells it. */
export const rateLimitHeaders = (rateLimit: RateLimitInfo): Record<string, string> => ({
  'x-ratelimit-limit': String(rateLimit.limit),
  'x-ratelimit-remaining': String(rateLimit.remaining),
  'x-ratelimit-reset': String(rateLimit.resetUnix),
});
