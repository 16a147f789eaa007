import type { FastifyRequest } from 'fastify';

/**
 * Takes the request's quota reservation away from the admission plugin's onResponse settlement: the
 * caller settles it from now on (an async job carries it to its finish; a cache hit releases it).
 */
export function takeReservation(request: FastifyRequest): string | undefined {
  const admitted = request.admitted;
  if (!admitted?.reservationId) return undefined;
  const id = admitted.reservationId;
  admitted.reservationId = undefined;
  return id;
}

/**
 * Reserves the unit of quota that admission deferred for a request that might have been a cache hit,
 * now that it renders (423 quota_exceeded when used up). Does nothing for any other request.
 */
export async function reserveDeferredQuota(request: FastifyRequest): Promise<void> {
  await request.reserveDeferredQuota?.();
}

/** Origin the client reached us at (or the configured public URL), for absolute file URLs. */
export function filesBaseUrl(request: FastifyRequest, publicUrl: string | undefined): string {
  const origin = publicUrl ? publicUrl.replace(/\/+$/, '') : `${request.protocol}://${request.host}`;
  return `${origin}/v1/files/`;
}
