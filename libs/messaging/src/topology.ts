import { nanos, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  RetentionPolicy,
  StorageType,
  jetstreamManager,
  type ConsumerConfig,
  type StreamConfig,
} from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';

/**
 * Every subject, stream, consumer and bucket of the system, defined once. Designed for nats-server
 * 2.9 semantics: one filter subject per consumer, no per-message TTL.
 */
export const SUBJECTS = {
  /** RenderJob, on the RENDER_JOBS work queue. */
  renderJobRequested: 'renderer.job.requested',
  /** RenderFinished, one subject per job so a waiting edge can subscribe to exactly its job. */
  renderFinished: (jobId: string) => `renderer.render.finished.${jobId}`,
  renderFinishedAll: 'renderer.render.finished.>',
} as const;

const HOUR_MS = 3_600_000;

export const STREAMS = {
  RENDER_JOBS: {
    name: 'RENDER_JOBS',
    subjects: ['renderer.job.>'],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: nanos(120_000),
    max_age: nanos(24 * HOUR_MS),
  },
  RENDER_EVENTS: {
    name: 'RENDER_EVENTS',
    subjects: ['renderer.render.>'],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: nanos(120_000),
    max_age: nanos(24 * HOUR_MS),
  },
} satisfies Record<string, Partial<StreamConfig> & { name: string }>;

/** Render jobs are shared by every renderer replica through this one durable pull consumer. */
export const RENDERER_JOBS_CONSUMER = {
  stream: STREAMS.RENDER_JOBS.name,
  config: {
    durable_name: 'renderer-jobs',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: SUBJECTS.renderJobRequested,
    // A crashed renderer's job comes back after this; live renders call working() well inside it.
    ack_wait: nanos(10_000),
    max_deliver: 4,
    max_ack_pending: 1_000,
  } satisfies Partial<ConsumerConfig>,
};

export const BUCKETS = {
  /** Render results (never inside a message). Sync results are removed once streamed. */
  renderResults: { name: 'render-results', ttlMs: 24 * HOUR_MS },
} as const;

/** Creates or updates every stream, consumer and bucket. Safe to call from every replica at start. */
export async function ensureTopology(nc: NatsConnection): Promise<void> {
  const jsm = await jetstreamManager(nc);
  for (const stream of Object.values(STREAMS)) {
    try {
      await jsm.streams.info(stream.name);
      await jsm.streams.update(stream.name, stream);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await jsm.streams.add(stream).catch(async (addErr: unknown) => {
        // Another replica created it between our info and add.
        await jsm.streams.info(stream.name).catch(() => {
          throw addErr;
        });
      });
    }
  }
  const consumer = RENDERER_JOBS_CONSUMER;
  await jsm.consumers.add(consumer.stream, consumer.config).catch(async (err: unknown) => {
    await jsm.consumers.update(consumer.stream, consumer.config.durable_name, consumer.config).catch(() => {
      throw err;
    });
  });
  const objm = new Objm(nc);
  await objm.create(BUCKETS.renderResults.name, {
    ttl: nanos(BUCKETS.renderResults.ttlMs),
    storage: StorageType.File,
  });
}

function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; name?: string; message?: string; api_error?: { err_code?: number } };
  return e?.api_error?.err_code === 10059 || e?.name === 'StreamNotFoundError' || /stream not found/i.test(e?.message ?? '');
}
