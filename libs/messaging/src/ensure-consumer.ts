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
  const wanted = { ...config, num_replicas: replicas };
  const info = await jsm.consumers.info(stream, config.durable_name).catch(() => undefined);
  if (!info) {
    await jsm.consumers.add(stream, wanted).catch(async (err: unknown) => {
      // Another replica made it between our info and add: bring it to the definition.
      if (!(await jsm.consumers.info(stream, config.durable_name).catch(() => undefined))) throw err;
      await ensureConsumer(jsm, consumer, replicas);
    });
    return;
  }
  if (copiesOf(info) !== replicas) {
    await jsm.consumers.delete(stream, config.durable_name).catch(async (err: unknown) => {
      // nats-server 2.9 often deletes a clustered consumer without answering in time: it is asked until the
      // consumer is gone (or another replica's delete got there first); still there after 10 s, it fails.
      const deadline = Date.now() + 10_000;
      const present = () => jsm.consumers.info(stream, config.durable_name).then(() => true, (e: Error) => !/not found/i.test(e.message));
      while (await present()) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    });
    // A work queue holds only what is unacknowledged (and takes no other start than all).
    const workQueue = (await jsm.streams.info(stream)).config.retention === RetentionPolicy.Workqueue;
    const resumed = workQueue ? wanted : { ...wanted, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: info.ack_floor.stream_seq + 1 };
    await jsm.consumers.add(stream, resumed).catch(async (err: unknown) => {
      // Another replica made it anew first: that one is kept.
      if (!(await jsm.consumers.info(stream, config.durable_name).catch(() => undefined))) throw err;
    });
    return;
  }
  const { deliver_policy: _kept, ...changeable } = wanted;
  await jsm.consumers.update(stream, config.durable_name, changeable as ConsumerUpdateConfig);
}
