import { readFileSync } from 'node:fs';
import type { Logger } from '@app/logging';
import { BUCKETS, Objm, connectNats, ensureTopology, jetstream, renderJobInputs, type NatsConnection } from '@app/messaging';
import { checkTargetUrl, startEgressProxy } from '@app/net-guard';
import { startHealthServer, type App, type HealthServer } from '@app/runtime';
import type { RendererConfig } from './config.js';
import { BrowserPool, spkiHashes } from './browser/index.js';
import { performRender } from './application/perform-render.js';
import { poolRenderer } from './render/index.js';
import { natsFinishedPublisher, objectStoreSink } from './adapters/nats-outputs.js';
import { renderJobsConsumer } from './entrypoints/render-jobs.consumer.js';

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
  if (!o.nats) await ensureTopology(nats);
  const js = jetstream(nats);
  const objects = await new Objm(nats).open(BUCKETS.renderResults.name);

  const perform = performRender({
    renderer: poolRenderer(pool, {
      routing: { allowPrivate: config.allowPrivateTargets, ipLocationProxies: config.ipLocationProxies },
      gpu: { enabled: config.pool.gpu },
      screencast: { ffmpegPath: config.ffmpegPath },
    }),
    results: objectStoreSink(objects),
    finished: natsFinishedPublisher(js),
    guard: { check: async (url, parameter) => void (await checkTargetUrl(url, { parameter, allowPrivate: config.allowPrivateTargets })) },
    clock: { now: () => new Date() },
    rendererId: config.rendererId,
    inputs: renderJobInputs(await new Objm(nats).open(BUCKETS.renderInputs.name)),
  });
  const consumer = renderJobsConsumer({ js, perform, concurrency: config.pool.concurrency, logger });
  let health: HealthServer | undefined;

  return {
    pool,
    async start() {
      await pool.start();
      consumer.start();
      health = await startHealthServer({
        port: config.healthPort,
        check: () => {
          if (nats.isClosed()) throw new Error('NATS connection closed');
          const s = pool.stats();
          return { rendererId: config.rendererId, inFlight: s.inFlight, queued: s.queued, browsers: s.browsers.length };
        },
      });
      logger.info({ rendererId: config.rendererId, healthPort: health.port }, 'renderer consuming render jobs');
    },
    async stop() {
      health?.setDraining();
      await consumer.stop();
      await pool.stop();
      await proxy.close();
      await nats.drain();
      await health?.close();
    },
  };
}
