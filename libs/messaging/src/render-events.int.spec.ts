import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetentionPolicy } from '@nats-io/jetstream';
import { startTestBus, type TestBus } from '@app/testkit';
import {
  AUTH_QUOTA_SETTLEMENTS_CONSUMER,
  EDGE_RENDER_EVENTS_CONSUMER,
  SCHEDULER_TASK_RUNS_CONSUMER,
  STREAMS,
  SUBJECTS,
  WEBHOOK_DELIVERIES_CONSUMER,
  ensureTopology,
  jetstream,
  jetstreamManager,
  type NatsConnection,
} from './index.js';

// Render events by origin on a real nats-server 2.9: each consumer gets its own, and an event is kept
// only until every consumer that wants it has acknowledged it.
let bus: TestBus;
let nc: NatsConnection;

beforeAll(async () => {
  bus = await startTestBus('render-events');
  nc = bus.nc;
  // An installation of the earlier layout: the stream kept every event a day (limits retention).
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(STREAMS.RENDER_EVENTS.name);
  await jsm.streams.add({ name: STREAMS.RENDER_EVENTS.name, subjects: ['renderer.render.>'], retention: RetentionPolicy.Limits });
  await ensureTopology(nc);
});

afterAll(() => bus?.stop());

const js = () => jetstream(nc);
const messages = async () => (await (await jetstreamManager(nc)).streams.info(STREAMS.RENDER_EVENTS.name)).state.messages;
const pending = async (consumer: { stream: string; config: { durable_name: string } }) =>
  (await (await jetstreamManager(nc)).consumers.info(consumer.stream, consumer.config.durable_name)).num_pending;

/** Takes the next message of a durable consumer and acknowledges it; its subject. */
async function takeOne(consumer: { stream: string; config: { durable_name: string } }): Promise<string> {
  const c = await js().consumers.get(consumer.stream, consumer.config.durable_name);
  const msg = await c.next({ expires: 2_000 });
  if (!msg) throw new Error(`nothing for ${consumer.config.durable_name}`);
  msg.ack();
  await msg.ackAck?.().catch(() => undefined);
  await nc.flush();
  return msg.subject;
}

describe('Render events', () => {
  describe('When the topology meets a render events stream of the earlier layout', () => {
    it('should replace it with the interest-retained stream of render.>', async () => {
      const info = await (await jetstreamManager(nc)).streams.info(STREAMS.RENDER_EVENTS.name);
      expect(info.config.retention).toBe(RetentionPolicy.Interest);
      expect(info.config.subjects).toEqual(['render.>']);
    });
  });

  describe('When a sync, an async and a task render finish', () => {
    it('should give each consumer only its own, and keep each event only until every consumer that wants it acknowledged it', async () => {
      await js().publish(SUBJECTS.renderEvent('sync', 'finished', 'job-s'), new Uint8Array([1]));
      await js().publish(SUBJECTS.renderEvent('async', 'finished', 'job-a'), new Uint8Array([2]));
      await js().publish(SUBJECTS.renderEvent('task', 'finished', 'job-t'), new Uint8Array([3]));
      expect(await messages()).toBe(3);
      expect(await pending(EDGE_RENDER_EVENTS_CONSUMER)).toBe(1);
      expect(await pending(WEBHOOK_DELIVERIES_CONSUMER)).toBe(1);
      expect(await pending(SCHEDULER_TASK_RUNS_CONSUMER)).toBe(1);
      expect(await pending(AUTH_QUOTA_SETTLEMENTS_CONSUMER)).toBe(3);

      // auth-quota settles all three: the sync event, wanted by nobody else, is gone.
      const settled = [await takeOne(AUTH_QUOTA_SETTLEMENTS_CONSUMER), await takeOne(AUTH_QUOTA_SETTLEMENTS_CONSUMER), await takeOne(AUTH_QUOTA_SETTLEMENTS_CONSUMER)];
      expect(settled).toEqual(['render.sync.finished.job-s', 'render.async.finished.job-a', 'render.task.finished.job-t']);
      await expect.poll(messages).toBe(2);

      expect(await takeOne(SCHEDULER_TASK_RUNS_CONSUMER)).toBe('render.task.finished.job-t');
      await expect.poll(messages).toBe(1);
      // The async event waits for both the edge and the webhook-dispatcher.
      expect(await takeOne(EDGE_RENDER_EVENTS_CONSUMER)).toBe('render.async.finished.job-a');
      expect(await messages()).toBe(1);
      expect(await takeOne(WEBHOOK_DELIVERIES_CONSUMER)).toBe('render.async.finished.job-a');
      await expect.poll(messages).toBe(0);
    });
  });
});
