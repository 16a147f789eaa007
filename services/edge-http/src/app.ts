import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '@app/logging';
import { BUCKETS, Objm, connectNats, ensureTopology, jetstream, type NatsConnection } from '@app/messaging';
import type { App } from '@app/runtime';
import type { EdgeConfig } from './config.js';
import type { AuthQuota, Clock, RenderQueue, ResultStore, TargetGuard } from './application/ports.js';
import { renderSync } from './application/render-sync.js';
import { grpcAuthQuota } from './adapters/grpc-auth-quota.js';
import { natsRenderQueue } from './adapters/nats-render-queue.js';
import { objectStoreResults } from './adapters/object-store-results.js';
import { netGuardTarget } from './adapters/net-guard-target.js';
import { buildServer } from './http/build-server.js';

export interface EdgeDeps {
  clock: Clock;
  nats: NatsConnection;
  authQuota: AuthQuota & { close?(): void };
  queue: RenderQueue;
  results: ResultStore;
  guard: TargetGuard;
}

export interface EdgeApp extends App {
  server: FastifyInstance;
  port(): number;
}

/** Composition root of edge-http. */
export async function createApp(config: EdgeConfig, logger: Logger, o: Partial<EdgeDeps> = {}): Promise<EdgeApp> {
  const clock = o.clock ?? { now: () => new Date() };
  const nats = o.nats ?? (await connectNats({ servers: config.natsUrl, name: 'edge-http' }));
  if (!o.nats) await ensureTopology(nats);
  const js = jetstream(nats);
  const authQuota = o.authQuota ?? grpcAuthQuota(config.authQuotaAddress);
  const queue = o.queue ?? natsRenderQueue(nats, js);
  const results = o.results ?? objectStoreResults(await new Objm(nats).open(BUCKETS.renderResults.name));
  const guard = o.guard ?? netGuardTarget({ allowPrivate: config.allowPrivateTargets });

  const server = await buildServer({
    logger,
    tls: config.tls ? { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } : undefined,
    bodyLimitBytes: config.bodyLimitBytes,
    authQuota,
    renderSync: renderSync({ queue, results, guard, clock, waitMarginMs: config.renderWaitMarginMs, newId: randomUUID }),
    health: async () => {
      if (nats.isClosed()) throw new Error('NATS connection closed');
      return {};
    },
  });

  let port = 0;
  return {
    server,
    port: () => port,
    async start() {
      await server.listen({ port: config.port, host: config.host });
      const address = server.server.address();
      port = typeof address === 'object' && address ? address.port : config.port;
      logger.info({ port, https: Boolean(config.tls) }, 'edge-http listening');
    },
    async stop() {
      await server.close();
      authQuota.close?.();
      await nats.drain();
    },
  };
}
