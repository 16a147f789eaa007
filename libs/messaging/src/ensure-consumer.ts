import { isNotFound } from './bus-errors.js';
import { pollUntil, retryUntil } from './retry-until.js';
import { DeliverPolicy, RetentionPolicy, type ConsumerConfig, type ConsumerInfo, type ConsumerUpdateConfig, type JetStreamManager } from '@nats-io/jetstream';

export interface ConsumerDefinition {
  stream: string;
  config: Partial<ConsumerConfig> & { durable_name: string };
}

/** Servers the consumer is kept on: its stated replica count, or (0: inherited) its peers. */
const copiesOf = (info: ConsumerInfo) => info.config.num_replicas || (info.cluster?.replicas?.length ?? 0) + 1;

/**
 * Creates the durable consumer in `replicas` copies, or brings an existing one to its definition.
 *
 * A consumer whose replica count changes is made anew rather than changed in place: nats-server 2.9
 * accepts the change, but a consumer raised from one copy to three there often has no leader again
 * once the server that led it is lost (its followers keep waiting for the dead leader; measured: 6 of 8
 * tries, none for a consumer made with three). The new consumer starts right after the old one's ack
 * floor (a work queue's holds nothing older), so nothing acknowledged comes back and nothing
 * unacknowledged is lost (it is delivered again, as after a crash). An existing consumer otherwise keeps where it starts (its deliver policy cannot
 * change) and takes every other setting of its definition.
 */
export async function ensureConsumer(jsm: JetStreamManager, consumer: ConsumerDefinition, replicas: number): Promise<void> {
  const { stream, config } = consumer;
  const info = () => jsm.consumers.info(stream, config.durable_name);
  /** Answered "not found" (a busy server's other answers do not count). */
  const gone = () => info().then(() => false, isNotFound);
  const made = () => info().then(() => true, () => false);
  /** Asks until `done`, every 200 ms for 10 s; then fails with `err`, the request's own failure. */
  const until = (done: () => Promise<boolean>, err: unknown) => pollUntil(done, { timeoutMs: 10_000, intervalMs: 200, failure: err });
  const wanted = { ...config, num_replicas: replicas };
  // Absent only when the server says "not found": a failure of another kind (a timeout, a stream electing its
  // leader while it is scaled) is asked again. Taken for absence, it made an existing consumer be created
  // again in place, whose acknowledged messages then came back.
  const current = await retryUntil(() => info().catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err))), {
    retryOn: () => true,
    timeoutMs: 10_000,
    intervalMs: 200,
  });
  if (!current) {
    await jsm.consumers.add(stream, wanted).catch(async (err: unknown) => {
      // Another replica made it between our info and add, or the answer came too late: once it is there,
      // it is brought to the definition.
      await until(made, err);
      await ensureConsumer(jsm, consumer, replicas);
    });
    return;
  }
  if (copiesOf(current) !== replicas) {
    // nats-server 2.9 often deletes a clustered consumer, or makes one, without answering in time: it is
    // asked until the consumer is gone (or there), which covers another replica's delete or add getting
    // there first too; still not so after 10 s, it fails.
    await jsm.consumers.delete(stream, config.durable_name).catch((err: unknown) => until(gone, err));
    // A work queue holds only what is unacknowledged (and takes no other start than all).
    const workQueue = (await jsm.streams.info(stream)).config.retention === RetentionPolicy.Workqueue;
    const resumed = workQueue ? wanted : { ...wanted, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: current.ack_floor.stream_seq + 1 };
    await jsm.consumers.add(stream, resumed).catch((err: unknown) => until(made, err));
    return;
  }
  const { deliver_policy: _kept, ...changeable } = wanted;
  await jsm.consumers.update(stream, config.durable_name, changeable as ConsumerUpdateConfig);
}
