import { isNotFound } from './bus-errors.js';
import { pollUntil, retryUntil } from './retry-until.js';
import { DeliverPolicy, RetentionPolicy, type ConsumerConfig, type ConsumerInfo, type ConsumerUpdateConfig, type JetStreamManager } from '@nats-io/jetstream';

export interface ConsumerDefinition {
  stream: string;
  config: Partial<ConsumerConfig> & { durable_name: string };
}

/**
 * Where existing consumers had got to, by `keyOf`: the stream sequence of each one's ack floor, and when
 * its stream was created (a floor says nothing about a stream made anew since: its sequences start over).
 */
export type AckFloors = ReadonlyMap<string, { floor: number; streamCreated: string }>;

const keyOf = ({ stream, config }: ConsumerDefinition) => `${stream}/${config.durable_name}`;

/** Servers the consumer is kept on: its stated replica count, or (0: inherited) its peers. */
const copiesOf = (info: ConsumerInfo) => info.config.num_replicas || (info.cluster?.replicas?.length ?? 0) + 1;

const leaderless = new Error('the consumer has no leader yet');

/**
 * The consumer as its leader states it, or undefined when the server says "not found".
 *
 * Any other failure (a timeout, a stream electing its leader while it is scaled) is asked again: taken for
 * absence, it made an existing consumer be created again in place, whose acknowledged messages then came
 * back. So is an answer that names no leader: on a cluster, a stream given more copies takes its consumers
 * along, and while they elect their leaders a server without their state may answer for them, with an ack
 * floor of 0 (measured on nats-server 2.9: 13 of 40 consumers asked right after their stream was scaled).
 */
function ledInfo(jsm: JetStreamManager, consumer: ConsumerDefinition): Promise<ConsumerInfo | undefined> {
  const ask = async () => {
    const info = await jsm.consumers.info(consumer.stream, consumer.config.durable_name).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
    if (info?.cluster && !info.cluster.leader) throw leaderless;
    return info;
  };
  return retryUntil(ask, { retryOn: () => true, timeoutMs: 30_000, intervalMs: 200 });
}

/**
 * The ack floors of the `consumers` that exist, read before their streams change: what ensureConsumer
 * starts a consumer it makes anew after, whatever a server answers for it while its stream is scaled.
 */
export async function ackFloorsOf(jsm: JetStreamManager, consumers: readonly ConsumerDefinition[]): Promise<AckFloors> {
  const floors = new Map<string, { floor: number; streamCreated: string }>();
  for (const consumer of consumers) {
    const info = await ledInfo(jsm, consumer);
    if (info) floors.set(keyOf(consumer), { floor: info.ack_floor.stream_seq, streamCreated: (await jsm.streams.info(consumer.stream)).created });
  }
  return floors;
}

/**
 * Creates the durable consumer in `replicas` copies, or brings an existing one to its definition.
 *
 * A consumer whose replica count changes is made anew rather than changed in place: nats-server 2.9
 * accepts the change, but a consumer raised from one copy to three there often has no leader again
 * once the server that led it is lost (its followers keep waiting for the dead leader; measured: 6 of 8
 * tries, none for a consumer made with three). The new consumer starts right after the old one's ack
 * floor, the higher of the one read now and the one in `known` (read before the streams changed, and
 * only if its stream was not made anew since), so nothing acknowledged comes back and nothing
 * unacknowledged is lost (it is delivered again, as after a crash); a work queue holds nothing older,
 * and takes no other start. A consumer in `known` that is gone
 * (an earlier try deleted it and failed to make it again) is made after its known floor the same way.
 * An existing consumer otherwise keeps where it starts (its deliver policy cannot change) and takes every
 * other setting of its definition.
 */
export async function ensureConsumer(jsm: JetStreamManager, consumer: ConsumerDefinition, replicas: number, known: AckFloors = new Map()): Promise<void> {
  const { stream, config } = consumer;
  const info = () => jsm.consumers.info(stream, config.durable_name);
  /** Answered "not found" (a busy server's other answers do not count). */
  const gone = () => info().then(() => false, isNotFound);
  const made = () => info().then(() => true, () => false);
  /** Asks until `done`, every 200 ms for 10 s; then fails with `err`, the request's own failure. */
  const until = (done: () => Promise<boolean>, err: unknown) => pollUntil(done, { timeoutMs: 10_000, intervalMs: 200, failure: err });
  const wanted = { ...config, num_replicas: replicas };
  const streamInfo = await jsm.streams.info(stream);
  const knownBefore = known.get(keyOf(consumer));
  const knownFloor = knownBefore?.streamCreated === streamInfo.created ? knownBefore.floor : undefined;
  // nats-server 2.9 often deletes a clustered consumer, or makes one, without answering in time: it is
  // asked until the consumer is gone (or there), which covers another replica's delete or add getting
  // there first too; still not so after 10 s, it fails.
  const remove = () => jsm.consumers.delete(stream, config.durable_name).catch((err: unknown) => until(gone, err));
  /**
   * Makes the consumer start right after `floor`, and checks that it did: led from a server whose copy of
   * the stream is still empty, nats-server 2.9 starts it at the stream's first message instead (it takes
   * an empty stream's first sequence as 1). Such a consumer is made again a second later, 10 times at most.
   */
  const addAfter = async (floor: number) => {
    if (streamInfo.config.retention === RetentionPolicy.Workqueue) {
      await jsm.consumers.add(stream, wanted).catch((err: unknown) => until(made, err));
      return;
    }
    const resumed = { ...wanted, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: floor + 1 };
    for (let attempt = 1; ; attempt++) {
      await jsm.consumers.add(stream, resumed).catch((err: unknown) => until(made, err));
      const started = (await ledInfo(jsm, consumer))?.delivered.stream_seq ?? floor;
      // The stream's leader holds everything up to its last message: a consumer started after `floor`
      // (or after the last message, when it holds fewer) has delivered at least that far.
      const expected = Math.min(floor, (await jsm.streams.info(stream)).state.last_seq);
      if (started >= expected) return;
      if (attempt === 10) throw new Error(`consumer ${keyOf(consumer)} was made to start after ${floor}, and started after ${started} every time`);
      await remove();
      await new Promise((r) => setTimeout(r, 1_000));
    }
  };
  const current = await ledInfo(jsm, consumer);
  if (!current && knownFloor !== undefined) {
    await addAfter(knownFloor);
    return;
  }
  if (!current) {
    await jsm.consumers.add(stream, wanted).catch(async (err: unknown) => {
      // Another replica made it between our info and add, or the answer came too late: once it is there,
      // it is brought to the definition.
      await until(made, err);
      await ensureConsumer(jsm, consumer, replicas, known);
    });
    return;
  }
  if (copiesOf(current) !== replicas) {
    await remove();
    await addAfter(Math.max(current.ack_floor.stream_seq, knownFloor ?? 0));
    return;
  }
  const { deliver_policy: _kept, ...changeable } = wanted;
  await jsm.consumers.update(stream, config.durable_name, changeable as ConsumerUpdateConfig);
}
