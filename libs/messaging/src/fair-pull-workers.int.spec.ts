import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AckPolicy, DeliverPolicy, RetentionPolicy } from '@nats-io/jetstream';
import { startTestBus, until, type TestBus } from '@app/testkit';
import { fairPullWorkers, jetstream, jetstreamManager, nanos, type PullWorkers } from './index.js';

// Messages of two keys on a real nats-server 2.9 work queue: one key published six before the other's one.
let bus: TestBus;
let workers: PullWorkers | undefined;
const quiet = { warn: () => undefined, error: () => undefined };
const decoder = new TextDecoder();

beforeAll(async () => {
  bus = await startTestBus('fair-pull');
  const jsm = await jetstreamManager(bus.nc);
  await jsm.streams.add({ name: 'FAIR', subjects: ['fair.>'], retention: RetentionPolicy.Workqueue });
  await jsm.consumers.add('FAIR', {
    durable_name: 'fair',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    // Shorter than the wait of the last message: only the held messages' heartbeats keep them from coming back.
    ack_wait: nanos(1_000),
    max_deliver: 5,
  });
});

afterAll(async () => {
  await workers?.stop();
  await bus?.stop();
});

describe('fairPullWorkers', () => {
  describe('When one key has six messages waiting ahead of another key on one slot', () => {
    it("should start the other key's message second, and handle every message exactly once", async () => {
      const js = jetstream(bus.nc);
      for (let i = 1; i <= 6; i++) await js.publish('fair.job', `a:${i}`);
      await js.publish('fair.job', 'b:1');
      const started: string[] = [];
      workers = fairPullWorkers({
        js,
        stream: 'FAIR',
        durable: 'fair',
        concurrency: 1,
        lookahead: 8,
        heartbeatMs: 300,
        logger: quiet,
        keyOf: (msg) => decoder.decode(msg.data).split(':')[0]!,
        span: (msg) => ({ name: msg.subject }),
        handle: async (msg) => {
          started.push(decoder.decode(msg.data));
          await new Promise((r) => setTimeout(r, 250));
          return { kind: 'ack' };
        },
      });
      workers.start();
      await until(() => started.length >= 7, 20_000, 'every message handled');
      // Quiet past the ack wait: nothing held comes back.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(started).toEqual(['a:1', 'b:1', 'a:2', 'a:3', 'a:4', 'a:5', 'a:6']);
    });
  });
});
