import type { FastifyInstance, FastifyRequest } from 'fastify';

type RouteOptions = FastifyRequest['routeOptions'];

declare module 'fastify' {
  interface FastifyRequest {
    /** `routeOptions`, read once (see `routeOf`). */
    matchedRoute: RouteOptions | null;
  }
}

/** Declares the request property `routeOf` fills (every request object then has the same shape). */
export function decorateMatchedRoute(app: FastifyInstance): void {
  app.decorateRequest('matchedRoute', null);
}

/**
 * The matched route's options (template, config) of a request. Fastify's `request.routeOptions` builds a
 * new object on every read, and every request reads it in several hooks (to name its span, admit it,
 * record its metrics): this reads it once per request.
 */
export function routeOf(request: FastifyRequest): RouteOptions {
  return (request.matchedRoute ??= request.routeOptions);
}
