import type { FastifyRequest } from 'fastify';

/**
 * Reserves the unit of quota that admission deferred for a request that might have been a cache hit,
 * now that it renders (423 quota_exceeded when used up, 429 concurrency_limited at the plan's renders
 * in flight), and returns the request's reservation for its render job to carry.
 */
export async function reserveDeferredQuota(request: FastifyRequest): Promise<string | undefined> {
  await request.reserveDeferredQuota?.();
  return request.admitted?.reservationId;
}

/** Origin the client reached us at (or the configured public URL), for absolute file URLs. */
export function filesBaseUrl(request: FastifyRequest, publicUrl: string | undefined): string {
  const origin = publicUrl ? publicUrl.replace(/\/+$/, '') : `${request.protocol}://${request.host}`;
  return `${origin}/v1/files/`;
}
