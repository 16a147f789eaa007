import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { Readable } from 'node:stream';
import Fastify, { LogController, type FastifyInstance, type FastifyServerFactory } from 'fastify';
import { AppError } from '@app/errors';
import { httpServerDuration, nameHttpRoute, traceIncomingRequests } from '@app/telemetry';
import type { Logger } from '@app/logging';
import { httpsServerOptions, type ReadinessCheck } from '@app/runtime';
import type { Admitter, ReservationOutcomes } from '../application/ports.js';
import type { RenderSync } from '../application/render-sync.js';
import type { AsyncHttpDeps } from '../results/index.js';
import { taskRoutes, type TaskScheduler } from '../tasks/index.js';
import { SECURITY_HEADERS, admissionPlugin, handedOver, matchRoutes, routeOf } from '../web/index.js';
import { clientErrorHandler, errorHandler, frameworkErrorHandler, notFoundHandler, requestIdOf } from './errors.js';
import { coalesceSocketWrites } from './coalesced-writes.js';
import { answerKnownHits, type Listener } from './known-hits.js';
import { rememberedValidation } from './render-input.js';
import { availabilityPlugin } from './plugins/availability.plugin.js';
import { healthRoutes } from './routes/health.routes.js';
import { renderRoutes } from './routes/render.routes.js';
import { rendersRoutes } from './routes/renders.routes.js';
import { filesRoutes } from './routes/files.routes.js';
import { usageRoutes } from './routes/usage.routes.js';
import { devicesRoutes } from './routes/devices.routes.js';
import { secretRoutes } from './routes/secrets.routes.js';
import type { AccountSecrets } from '../application/account-secrets.js';
import { apiDocs, collectRoutes } from './openapi/api-docs.plugin.js';

export interface HttpDeps {
  logger: Logger;
  tls?: { key: Buffer; cert: Buffer };
  bodyLimitBytes: number;
  /** Write each event-loop turn's responses together (EDGE_COALESCE_WRITES; see coalesced-writes.ts). */
  coalesceWrites?: boolean;
  authQuota: Admitter;
  reservations: ReservationOutcomes;
  renderSync: RenderSync;
  health: () => Promise<Record<string, unknown>>;
  /** Dependencies /readyz checks (bus, peers). */
  ready?: Record<string, ReadinessCheck>;
  /** False while the bus is down: API requests are answered 503 service_unavailable at once. */
  available?: () => boolean;
  /** Calls its listener each time the bus is judged down (admissions in flight are then answered 503); returns the unsubscribe. */
  onBusDown?: (listener: () => void) => () => void;
  /** Async renders, render status, result files and the cache (absent: those routes answer 503 / 404). */
  asyncRenders?: AsyncHttpDeps;
  /** Scheduled tasks, served by the scheduler (absent: no /v1/tasks routes). */
  tasks?: { scheduler: TaskScheduler; publicUrl?: string | undefined };
  /** The account's secrets, kept by auth-quota (absent: no /v1/secrets routes). */
  secrets?: AccountSecrets;
  /** The service's own pages beside the API (the account dashboard at /dashboard), as a plugin (absent: none). */
  pages?: (app: FastifyInstance) => Promise<void>;
}

const UNTRACED_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/**
 * The HTTP(S) server under Fastify, with the same timeouts Fastify would give its own: each request runs
 * inside its trace's server span (probes excepted), so X-Service-Request-Id and every downstream call
 * carry the trace id. `beneathFastify` sees each request first (the answer of known cache hits).
 */
function tracedServer(tls: HttpDeps['tls'], coalesceWrites: boolean, beneathFastify: ((fastify: Listener) => Listener) | undefined): FastifyServerFactory {
  return (handler, options) => {
    const first = beneathFastify ? beneathFastify(handler) : handler;
    const listener = traceIncomingRequests<IncomingMessage, ServerResponse>(first, { ignore: (req) => UNTRACED_PATHS.has(req.url ?? '') });
    const server = tls ? createHttpsServer(httpsServerOptions(tls), listener) : createHttpServer(listener);
    const { keepAliveTimeout, requestTimeout, connectionTimeout } = options as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number };
    server.keepAliveTimeout = keepAliveTimeout ?? 72_000;
    server.requestTimeout = requestTimeout ?? 0;
    server.setTimeout(connectionTimeout ?? 0);
    // What one event-loop turn sends (every response, errors included) is written at the turn's end.
    if (coalesceWrites) coalesceSocketWrites(server);
    return server;
  };
}

/** The public HTTPS API, built without listening so tests can inject(). */
export async function buildServer(deps: HttpDeps): Promise<FastifyInstance> {
  let closing = false;
  // HTTP server latency and status by route template (probes are not traffic).
  const recordHttp = httpServerDuration();
  const validate = rememberedValidation({ maxEntries: 10_000 });
  const renderCached = deps.asyncRenders?.renderCached;
  const knownHits =
    renderCached &&
    ((fastify: Listener) =>
      answerKnownHits({ known: renderCached.known, admitter: deps.authQuota, validate, recordHttp, open: () => !closing && (deps.available?.() ?? true) }, fastify));
  const app = Fastify({
    loggerInstance: deps.logger,
    // Per-request lines are off (errors are logged once, by the error handler).
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request: every line already carries the request's trace id (the logger's mixin).
    childLoggerFactory: (logger) => logger,
    bodyLimit: deps.bodyLimitBytes,
    // Errors Fastify and Node's parser raise themselves get the service's error shape and request id too.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // Requests arriving while the server closes are refused by the hook below, in the service's error shape.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    serverFactory: tracedServer(deps.tls, deps.coalesceWrites ?? false, knownHits),
  }) as unknown as FastifyInstance;

  // Keep the raw body: signed POST requests are checked over the exact bytes sent.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    request.rawBody = body as Buffer;
    if ((body as Buffer).length === 0) return done(null, {});
    try {
      done(null, JSON.parse((body as Buffer).toString('utf8')));
    } catch {
      const err = new Error('invalid JSON') as Error & { statusCode: number };
      err.statusCode = 400;
      done(err, undefined);
    }
  });

  // A body read beneath Fastify (a request handed over by answerKnownHits) is given to its parser again.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const held = handedOver(request.raw);
    done(null, held ? Readable.from([held.body], { objectMode: false }) : payload);
  });

  // Every response, errors included: the security headers that act on any response (computed once; the
  // service's own pages add the page-only ones) and X-Service-Request-Id,
  // the trace id. The trace's server span takes the route's name (POST /v1/tasks/:id).
  const security = SECURITY_HEADERS.everyResponse;
  matchRoutes(app);
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeOf(request).url;
    if (route && !UNTRACED_PATHS.has(route)) recordHttp(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (request, reply, done) => {
    // Only a recorded span reads the route (before the route's own hooks: a refusal here is named too).
    nameHttpRoute(request.method, () => routeOf(request).url);
    void reply.headers(security).header('x-service-request-id', requestIdOf());
    if (closing) {
      void reply.header('connection', 'close');
      return done(new AppError('service_unavailable', 'This server is shutting down; retry the request.', { retryAfterSeconds: 1 }));
    }
    done();
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  const routes = collectRoutes(app);

  await app.register(healthRoutes, { details: deps.health, ready: deps.ready });
  if (deps.pages) await app.register(deps.pages);
  if (deps.asyncRenders) await app.register(filesRoutes, { openResultFile: deps.asyncRenders.openResultFile });
  await app.register(async (api) => {
    if (deps.available) await api.register(availabilityPlugin, { available: deps.available });
    await api.register(admissionPlugin, { admitter: deps.authQuota, reservations: deps.reservations, ...(deps.onBusDown ? { onBusDown: deps.onBusDown } : {}) });
    await api.register(renderRoutes, { renderSync: deps.renderSync, validate, ...deps.asyncRenders });
    if (deps.asyncRenders) await api.register(rendersRoutes, deps.asyncRenders);
    await api.register(usageRoutes, { authQuota: deps.authQuota });
    await api.register(devicesRoutes);
    if (deps.tasks) await api.register(taskRoutes, deps.tasks);
    if (deps.secrets) await api.register(secretRoutes, { secrets: deps.secrets });
  });
  await app.register(apiDocs, { routes });
  return app;
}
