import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetentionPolicy } from '@nats-io/jetstream';
import { startTestBus, type TestBus } from '@app/testkit';
import {
  AUTH_QUOTA_SETTLEMENTS_CONSUMER,
  EDGE_RENDER_EVENTS_CONSUMER,
  SCHEDULER_RUN_COMPARISONS_CONSUMER,
  SCHEDULER_TASK_RUNS_CONSUMER,
  STREAMS,
  SUBJECTS,
  WEBHOOK_DELIVERIES_CONSUMER,
  WEBHOOK_TASK_RUN_DELIVERIES_CONSUMER,
  ensureTopology,
  jetstream,
  jetstreamManager,
  type NatsConnection,
} from './index.js';

// Render events by origin on a real nats-server 2.9: each consumer gets its own and keeps its own place;
// an event stays in the stream whatever its consumers acknowledged (limits retention, bounded by max_age).
let bus: TestBus;
let nc: NatsConnection;

beforeAll(async () => {
  bus = await startTestBus('render-events');
  nc = bus.nc;
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

/** Replaces the render events stream with one of the earlier layout: interest retention. */
async function earlierLayout(): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(STREAMS.RENDER_EVENTS.name).catch(() => undefined);
  await jsm.streams.add({ name: STREAMS.RENDER_EVENTS.name, subjects: ['render.>'], retention: RetentionPolicy.Interest });
  await jsm.consumers.add(STREAMS.RENDER_EVENTS.name, AUTH_QUOTA_SETTLEMENTS_CONSUMER.config);
}

describe('Render events', () => {
  describe('When the topology meets an interest-retained render events stream still holding an event', () => {
    it('should keep that stream and its event, and replace it with a limits-retained one once it is empty', async () => {
      await earlierLayout();
      await js().publish(SUBJECTS.renderEvent('sync', 'finished', 'job-old'), new Uint8Array([9]));
      await ensureTopology(nc);
      const jsm = await jetstreamManager(nc);
      let info = await jsm.streams.info(STREAMS.RENDER_EVENTS.name);
      expect(info.config.retention).toBe(RetentionPolicy.Interest);
      expect(info.state.messages).toBe(1);
      expect(await takeOne(AUTH_QUOTA_SETTLEMENTS_CONSUMER)).toBe('render.sync.finished.job-old');
      await expect.poll(messages).toBe(0);

      await ensureTopology(nc);
      info = await jsm.streams.info(STREAMS.RENDER_EVENTS.name);
      expect(info.config.retention).toBe(RetentionPolicy.Limits);
      expect(info.config.subjects).toEqual(['render.>']);
    });
  });

  describe('When a sync, an async and a task render finish', () => {
    it('should give each consumer only its own, and keep every event after every consumer acknowledged it', async () => {
      await js().publish(SUBJECTS.renderEvent('sync', 'finished', 'job-s'), new Uint8Array([1]));
      await js().publish(SUBJECTS.renderEvent('async', 'finished', 'job-a'), new Uint8Array([2]));
      await js().publish(SUBJECTS.renderEvent('task', 'finished', 'job-t'), new Uint8Array([3]));
      expect(await messages()).toBe(3);
      expect(await pending(EDGE_RENDER_EVENTS_CONSUMER)).toBe(1);
      expect(await pending(WEBHOOK_DELIVERIES_CONSUMER)).toBe(1);
      expect(await pending(SCHEDULER_TASK_RUNS_CONSUMER)).toBe(1);
      expect(await pending(SCHEDULER_RUN_COMPARISONS_CONSUMER)).toBe(1);
      expect(await pending(WEBHOOK_TASK_RUN_DELIVERIES_CONSUMER)).toBe(1);
      expect(await pending(AUTH_QUOTA_SETTLEMENTS_CONSUMER)).toBe(3);

      const settled = [await takeOne(AUTH_QUOTA_SETTLEMENTS_CONSUMER), await takeOne(AUTH_QUOTA_SETTLEMENTS_CONSUMER), await takeOne(AUTH_QUOTA_SETTLEMENTS_CONSUMER)];
      expect(settled).toEqual(['render.sync.finished.job-s', 'render.async.finished.job-a', 'render.task.finished.job-t']);
      expect(await takeOne(SCHEDULER_TASK_RUNS_CONSUMER)).toBe('render.task.finished.job-t');
      // The scheduler's comparisons keep their own place: recording the outcome took nothing from them.
      expect(await pending(SCHEDULER_RUN_COMPARISONS_CONSUMER)).toBe(1);
      expect(await takeOne(SCHEDULER_RUN_COMPARISONS_CONSUMER)).toBe('render.task.finished.job-t');
      expect(await takeOne(WEBHOOK_TASK_RUN_DELIVERIES_CONSUMER)).toBe('render.task.finished.job-t');
      expect(await takeOne(EDGE_RENDER_EVENTS_CONSUMER)).toBe('render.async.finished.job-a');
      // One consumer's acknowledgement takes nothing from another's: the dispatcher still gets its event.
      expect(await pending(WEBHOOK_DELIVERIES_CONSUMER)).toBe(1);
      expect(await takeOne(WEBHOOK_DELIVERIES_CONSUMER)).toBe('render.async.finished.job-a');
      expect(await messages()).toBe(3);
      expect(await pending(AUTH_QUOTA_SETTLEMENTS_CONSUMER)).toBe(0);
    });
  });
});
