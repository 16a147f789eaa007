import type { FastifyRequest } from 'fastify';
import type { Settler } from '../application/ports.js';

/**
 * A request's quota reservation as a value: its id and who ends it, as admission recorded it with
 * auth-quota. `job`: the render job carries it and its outcome settles it. `answer`: the admission hook
 * ends it when the request is answered (charged on a successful answer) or its caller is gone (released).
 */
export interface HeldReservation {
  readonly id: string;
  readonly settler: Settler;
}

/**
 * Reserves the unit of quota that admission deferred for a request that might have been a cache hit,
 * now that it renders (423 quota_exceeded when used up, 429 concurrency_limited at the plan's renders
 * in flight), and returns the request's reservation for its render job to carry.
 */
export async function reserveDeferredQuota(request: FastifyRequest): Promise<string | undefined> {
  await request.reserveDeferredQuota?.();
  return request.reservation?.id;
}

/** Origin the client reached us at (or the configured public URL), for absolute file URLs. */
export function filesBaseUrl(request: FastifyRequest, publicUrl: string | undefined): string {
  const origin = publicUrl ? publicUrl.replace(/\/+$/, '') : `${request.protocol}://${request.host}`;
  return `${origin}/v1/files/`;
}
