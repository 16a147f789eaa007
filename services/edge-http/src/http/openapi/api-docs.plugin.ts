import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { SECURITY_HEADERS } from '../../web/index.js';
import { buildOpenApiDocument, type RouteInfo } from './openapi-document.js';

const DOCS_PREFIX = '/docs';
/** The account dashboard's page and its session-authenticated JSON API are not part of the public API. */
const DASHBOARD_PREFIX = '/dashboard';

/**
 * Records every route the server registers (method, path, usage), for the API reference. Call it
 * before the routes are registered.
 */
export function collectRoutes(app: FastifyInstance): readonly RouteInfo[] {
  const routes: RouteInfo[] = [];
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(DOCS_PREFIX) || route.url.startsWith(DASHBOARD_PREFIX) || (route.schema as { hide?: boolean } | undefined)?.hide) return;
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, usage: route.config?.usage });
  });
  return routes;
}

/**
 * GET /openapi.json, the OpenAPI 3.1 document of the routes the server registered (built once they
 * all are, when the server is ready), and GET /docs, an interactive reference over it served from the
 * service's own assets (Swagger UI: authorize with an access key, then send requests), under a
 * Content-Security-Policy that runs nothing else.
 */
export async function apiDocs(app: FastifyInstance, opts: { routes: readonly RouteInfo[] }) {
  const document: Record<string, unknown> = {};
  app.addHook('onReady', async () => {
    Object.assign(document, buildOpenApiDocument(opts.routes));
  });
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    // The page shares its origin with the dashboard's session: a Content-Security-Policy lets only its
    // own assets (and the inline scripts it ships, by hash) run there.
    staticCSP: true,
    uiHooks: {
      onRequest: (_request, reply, done) => {
        void reply.headers(SECURITY_HEADERS.pagesOnly);
        done();
      },
    },
    uiConfig: { deepLinking: true, displayRequestDuration: true, tryItOutEnabled: true, persistAuthorization: false },
  });
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(document));
}
