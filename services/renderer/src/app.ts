import { readFileSync } from 'node:fs';
import type { Logger } from '@app/logging';
import {
  BUCKETS,
  Objm,
  RENDERER_JOBS_CONSUMER,
  busStatus,
  connectNats,
  ensureTopology,
  jetstream,
  jetstreamManager,
  startCapacityHeartbeat,
  watchFleetCapacity,
  type CapacityHeartbeat,
  type NatsConnection,
} from '@app/messaging';
import { renderJobInputs } from '@app/render-contracts';
import { checkTargetUrl, startEgressProxy } from '@app/net-guard';
import { startHealthServer, type App, type HealthServer } from '@app/runtime';
import type { RendererConfig } from './config.js';
import { BrowserPool, spkiHashes } from './browser/index.js';
import { performRender } from './application/perform-render.js';
import { poolRenderer, spareEncoders } from './render/index.js';
import { natsFinishedPublisher, objectStoreSink } from './adapters/nats-outputs.js';
import { natsStartGate } from './adapters/nats-start-gate.js';
import { natsResultHandOver } from './adapters/nats-hand-over.js';
import { rendererMetrics } from './renderer-metrics.js';
import { renderJobsConsumer } from './entrypoints/render-jobs.consumer.js';
import { grpcSecretSource } from './adapters/grpc-secret-source.js';
import { grpcSessionStore } from './adapters/grpc-session-store.js';

export interface RendererApp extends App {
  pool: BrowserPool;
}

/** Composition root of the renderer: egress proxy (SSRF guard) → browser pool → job consumer. */
export async function createApp(config: RendererConfig, logger: Logger, o: { nats?: NatsConnection } = {}): Promise<RendererApp> {
  const proxy = await startEgressProxy({
    allowPrivate: config.allowPrivateTargets,
    onBlocked: (info) => logger.warn(info, 'blocked a browser request to a private address'),
  });
  const trustedSpki = config.trustedCertsFile ? spkiHashes(readFileSync(config.trustedCertsFile, 'utf8')) : [];
  const pool = new BrowserPool({ ...config.pool, proxyUrl: proxy.url, trustedSpki, logger });
  const nats = o.nats ?? (await connectNats({ servers: config.natsUrl, name: `renderer-${config.rendererId}` }));
  if (!o.nats) await ensureTopology(nats, { replicas: config.natsReplicas });
  const js = jetstream(nats);
  const objects = await new Objm(nats).open(BUCKETS.renderResults.name);
  const bus = busStatus(nats);
  const jsm = await jetstreamManager(nats);
  const metrics = rendererMetrics({
    pool,
    concurrency: config.pool.concurrency,
    queueDepth: async () =>
      (await jsm.consumers.info(RENDERER_JOBS_CONSUMER.stream, RENDERER_JOBS_CONSUMER.config.durable_name)).num_pending,
  });

  // One ffmpeg kept started ahead, of the last screencast's shape.
  const encoders = spareEncoders(config.ffmpegPath);
  const secretSource = grpcSecretSource(config.authQuotaAddress);
  const sessionStore = grpcSessionStore(config.authQuotaAddress);
  const perform = performRender({
    renderer: poolRenderer(pool, {
      routing: { allowPrivate: config.allowPrivateTargets, ipLocationProxies: config.ipLocationProxies },
      gpu: { enabled: config.pool.gpu },
      screencast: { encoders },
    }),
    results: objectStoreSink(objects),
    finished: natsFinishedPublisher(nats, js),
    guard: { check: async (url, parameter) => void (await checkTargetUrl(url, { parameter, allowPrivate: config.allowPrivateTargets })) },
    clock: { now: () => new Date() },
    rendererId: config.rendererId,
    inputs: renderJobInputs(await new Objm(nats).open(BUCKETS.renderInputs.name)),
    startGate: natsStartGate(nats),
    handOver: natsResultHandOver(nats),
    observe: metrics.observe,
    secrets: secretSource,
    sessions: sessionStore,
  });
  // Whether this renderer has peers: one alone holds waiting jobs to start them fairly, one with peers does not.
  const fleet = await watchFleetCapacity(nats);
  const consumer = renderJobsConsumer({ js, perform, concurrency: config.pool.concurrency, fleetSlots: fleet.capacity, logger });
  let health: HealthServer | undefined;
  let capacity: CapacityHeartbeat | undefined;

  return {
    pool,
    async start() {
      await pool.start();
      consumer.start();
      // The fleet's capacity (auth-quota keeps every account's renders in flight below it) counts this one.
      capacity = await startCapacityHeartbeat(nats, {
        rendererId: config.rendererId,
        slots: config.pool.concurrency,
        onError: (err) => logger.warn({ err }, 'could not report the render slots'),
      });
      health = await startHealthServer({
        port: config.healthPort,
        host: config.healthHost,
        ready: {
          nats: bus.check,
          browsers: () => {
            if (!pool.healthy()) throw new Error('no browser accepts work');
          },
        },
        details: () => {
          const s = pool.stats();
          return { rendererId: config.rendererId, inFlight: s.inFlight, queued: s.queued, browsers: s.browsers.length };
        },
      });
      logger.info({ rendererId: config.rendererId, healthPort: health.port }, 'renderer consuming render jobs');
    },
    async stop() {
      health?.setDraining();
      await capacity?.stop();
      await consumer.stop();
      fleet.stop();
      await pool.stop();
      await encoders.stop();
      await proxy.close();
      secretSource.close();
      sessionStore.close();
      await nats.drain();
      await health?.close();
    },
  };
}
