import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '@app/logging';
import { BUCKETS, DEFAULT_BUS_PROBE, Kvm, Objm, SUBJECTS, busStatus, connectNats, ensureTopology, jetstream, wholeObjectReader, type NatsConnection } from '@app/messaging';
import { openRenderJobPublisher } from '@app/render-contracts';
import { startHealthServer, type App, type HealthServer, type ReadinessCheck } from '@app/runtime';
import { edgeMetrics } from './edge-metrics.js';
import type { EdgeConfig } from './config.js';
import type { Clock, RenderQueue, ReservationOutcomes, ResultStore, TargetGuard } from './application/ports.js';
import { renderSync } from './application/render-sync.js';
import { edgeAdmission, grpcAuthQuota, type AuthQuotaClient } from './admission/index.js';
import { reservationEnds } from './adapters/reservation-ends.js';
import { natsRenderQueue } from './adapters/nats-render-queue.js';
import { netGuardTarget } from './adapters/net-guard-target.js';
import { grpcScheduler } from './adapters/grpc-scheduler.js';
import { grpcAccountSecrets } from './adapters/grpc-account-secrets.js';
import { buildServer } from './http/index.js';
import { buildResults, objectStoreFiles } from './results/index.js';
import type { TaskScheduler } from './tasks/index.js';
import { buildDashboard } from './dashboard/index.js';

export interface EdgeDeps {
  clock: Clock;
  nats: NatsConnection;
  authQuota: AuthQuotaClient & { close?(): void; ready?(): Promise<void> };
  reservations: ReservationOutcomes;
  queue: RenderQueue;
  results: ResultStore;
  guard: TargetGuard;
  scheduler: TaskScheduler & { close?(): void; ready?(): Promise<void> };
}

export interface EdgeApp extends App {
  server: FastifyInstance;
  port(): number;
}

/** Composition root of edge-http. */
export async function createApp(config: EdgeConfig, logger: Logger, o: Partial<EdgeDeps> = {}): Promise<EdgeApp> {
  const clock = o.clock ?? { now: () => new Date() };
  const nats = o.nats ?? (await connectNats({ servers: config.natsUrl, name: 'edge-http' }));
  if (!o.nats) await ensureTopology(nats, { replicas: config.natsReplicas });
  const js = jetstream(nats);
  // Pinged, so a hung NATS (connection open, no answer) refuses API requests at once too, not after a backing call's deadline.
  const bus = busStatus(nats, { probe: DEFAULT_BUS_PROBE });
  const authQuotaClient = o.authQuota ?? grpcAuthQuota(config.authQuotaAddress);
  const metrics = edgeMetrics();
  // One admission seam: busy keys' possible cache hits admitted here from rate leases, floods of bad keys
  // answered from memory, the rest by auth-quota. Key changes clear the memory and account changes drop
  // the account's leases, on every edge.
  const admission = edgeAdmission(authQuotaClient, {
    refusedKeyTtlMs: config.refusedKeyTtlMs,
    onSpent: metrics.leased,
    onReturnError: (err) => logger.warn({ err }, 'giving back the unspent units of a rate lease failed'),
  });
  const authQuota = admission.admitter;
  const keyChanges = nats.subscribe(SUBJECTS.accountKeysChanged, { callback: () => admission.keysChanged() });
  const accountChanges = nats.subscribe(SUBJECTS.accountDirectoryChanged, { callback: (_err, msg) => admission.accountChanged(msg.string()) });
  // Parameters too large for a message (a big html) travel by reference, through the render-inputs store.
  const jobPublisher = await openRenderJobPublisher(nats, js);
  const queue = o.queue ?? natsRenderQueue(nats, jobPublisher, bus);
  const guard = o.guard ?? netGuardTarget({ allowPrivate: config.allowPrivateTargets });
  const scheduler = o.scheduler ?? grpcScheduler(config.schedulerAddress);
  const secrets = grpcAccountSecrets(config.authQuotaAddress);
  // One adapter over the render-results bucket: sync results are read from it, async ones served.
  const objects = await new Objm(nats).open(BUCKETS.renderResults.name);
  const readWhole = wholeObjectReader(nats, objects, BUCKETS.renderResults.name);
  const results = o.results ?? objectStoreFiles(objects, readWhole);
  const kvm = new Kvm(nats);
  const syncRender = renderSync({
    queue,
    results,
    guard,
    clock,
    waitMarginMs: config.renderWaitMarginMs,
    startWithinMs: config.renderStartTimeoutMs,
    newId: randomUUID,
    onShed: metrics.shed,
  });
  const asyncRenders = buildResults({
    config,
    logger,
    js,
    jobPublisher,
    clock,
    guard,
    renderSync: syncRender,
    objects,
    readWhole,
    statusKv: await kvm.open(BUCKETS.renderStatus.name),
    cacheKv: await kvm.open(BUCKETS.renderCache.name),
  });
  const reservations = o.reservations ?? reservationEnds(authQuota, js);
  const dashboard = await buildDashboard({
    reservations,
    address: config.authQuotaAddress,
    kvm,
    clock,
    admitter: authQuota,
    scheduler,
    renders: { recent: asyncRenders.recentRenders, getRenderStatus: asyncRenders.http.getRenderStatus, deliveryState: asyncRenders.deliveryState },
    publicUrl: config.publicUrl,
  });

  const ready: Record<string, ReadinessCheck> = {
    nats: bus.check,
    ...(authQuotaClient.ready ? { 'auth-quota': authQuotaClient.ready } : {}),
    ...(scheduler.ready ? { scheduler: scheduler.ready } : {}),
  };
  const server = await buildServer({
    logger,
    tls: config.tls ? { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } : undefined,
    bodyLimitBytes: config.bodyLimitBytes,
    coalesceWrites: config.coalesceWrites,
    authQuota,
    reservations,
    renderSync: syncRender,
    asyncRenders: asyncRenders.http,
    tasks: { scheduler, publicUrl: config.publicUrl },
    secrets,
    pages: dashboard.pages,
    health: async () => ({}),
    ready,
    available: bus.connected,
    onBusDown: bus.onDown,
  });
  let ops: HealthServer | undefined;

  let port = 0;
  return {
    server,
    port: () => port,
    async start() {
      await server.listen({ port: config.port, host: config.host });
      const address = server.server.address();
      port = typeof address === 'object' && address ? address.port : config.port;
      asyncRenders.start();
      ops = await startHealthServer({ port: config.healthPort, host: config.healthHost, ready });
      logger.info({ port, https: Boolean(config.tls), healthPort: ops.port }, 'edge-http listening');
    },
    async stop() {
      ops?.setDraining();
      await server.close();
      await asyncRenders.stop();
      keyChanges.unsubscribe();
      accountChanges.unsubscribe();
      await admission.close();
      authQuotaClient.close?.();
      scheduler.close?.();
      secrets.close();
      dashboard.close();
      await nats.drain();
      await ops?.close();
    },
  };
}
