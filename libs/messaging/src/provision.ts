import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { StorageType, jetstreamManager, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { Objm } from '@nats-io/obj';
import { isNotFound } from './bus-errors.js';
import { ackFloorsOf, ensureConsumer, type ConsumerDefinition } from './ensure-consumer.js';
import { ensureStream, type StreamDefinition } from './ensure-stream.js';
import { whileBusUnavailable } from './publish-until-stored.js';
import { retryUntil } from './retry-until.js';
import { BUCKETS, CONSUMERS, STREAMS, type BucketDefinition } from './topology.js';

/**
 * How many copies of every stream and bucket the servers keep: 1 on a single server, 3 on a three-node
 * cluster (a lost node loses nothing, and a majority of two keeps writing). NATS allows at most 5.
 */
export interface TopologyOptions {
  replicas?: number;
}

/**
 * Creates or updates every stream, consumer and bucket of topology.ts, each with `replicas` copies
 * (default 1). Safe to call from every replica at start; an existing stream or bucket with another replica
 * count is changed to this one in place (the servers copy it to the new peers).
 */
export async function ensureTopology(nc: NatsConnection, opts: TopologyOptions = {}): Promise<void> {
  const replicas = opts.replicas ?? 1;
  const jsm = await throughElections(() => jetstreamManager(nc));
  await ensureStreams(jsm, Object.values(STREAMS), CONSUMERS, replicas);
  for (const bucket of Object.values(BUCKETS)) await throughElections(() => ensureBucket(nc, jsm, bucket, replicas));
}

/**
 * Creates or updates `streams` and then `consumers` (of these streams), each with `replicas` copies. The
 * consumers' ack floors are read before any stream changes: a stream given more copies takes its consumers
 * along, and a server without their state may answer for them while they elect leaders (see ensureConsumer).
 */
export async function ensureStreams(jsm: JetStreamManager, streams: readonly StreamDefinition[], consumers: readonly ConsumerDefinition[], replicas: number): Promise<void> {
  const floors = await throughElections(() => ackFloorsOf(jsm, consumers));
  for (const definition of streams) await throughElections(() => ensureStream(jsm, { ...definition, num_replicas: replicas }));
  // The replica count stated, not inherited: a consumer made while its stream had one copy would keep
  // one copy (on one server) after the stream was given three, and be lost with that server.
  for (const consumer of consumers) await throughElections(() => ensureConsumer(jsm, consumer, replicas, floors));
}

/**
 * Each step again while the bus is unavailable for a moment: a service that starts beside a cluster
 * still electing its leaders (or under load that delays their answers past the request timeout) waits
 * for it rather than exiting. Every step is create-or-update, safe to repeat.
 */
const throughElections = <T>(step: () => Promise<T>): Promise<T> => whileBusUnavailable(step, 30_000);

async function ensureBucket(nc: NatsConnection, jsm: JetStreamManager, bucket: BucketDefinition, replicas: number): Promise<void> {
  const opts = { storage: StorageType.File, replicas };
  const status: () => Promise<{ streamInfo: { config: StreamConfig } }> =
    bucket.kind === 'kv'
      ? await new Kvm(nc).create(bucket.name, { ...opts, ttl: bucket.ttlMs, history: 1 }).then((kv) => () => kv.status())
      : await new Objm(nc).create(bucket.name, { ...opts, ttl: nanos(bucket.ttlMs) }).then((os) => () => os.status());
  const { config } = (await onceFound(status)).streamInfo;
  // create() leaves an existing bucket as it was: it takes the replica count asked for, and an object
  // store an older, shorter backstop TTL is raised (a KV bucket's TTL is its values' life, fixed at creation).
  const maxAge = bucket.kind === 'objects' ? nanos(bucket.ttlMs) : config.max_age;
  if (config.num_replicas === replicas && config.max_age === maxAge) return;
  const info = await jsm.streams.info(config.name);
  await jsm.streams.update(config.name, { ...info.config, num_replicas: replicas, max_age: maxAge });
}

/**
 * A bucket's stream read right after it was made: on a cluster, the server that answers may not hold the
 * new stream yet and say it is not found (seen once in 16 fresh clusters); it is asked again.
 */
const onceFound = <T>(read: () => Promise<T>): Promise<T> => retryUntil(read, { retryOn: isNotFound, timeoutMs: 5_000, intervalMs: 100 });
