import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBus, type TestBus } from '@app/testkit';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import type { ConsumerDefinition } from './ensure-consumer.js';
import { ensureStreams, jetstream, jetstreamManager } from './index.js';

// Streams and their consumers raised from one copy to three on a real three-node nats-server 2.9 cluster.
// The servers take each consumer along with its stream; while they do, one without the consumer's state may
// answer for it (an ack floor of 0), and a consumer led from a copy of the stream still empty starts at its
// first message. Either made acknowledged messages come back (3 of 8 consumers in one run, 1 to 4 of 8 in
// others, before ensureStreams read the floors first and waited for every copy).
let bus: TestBus;

beforeAll(async () => {
  bus = await startTestBus('ensure-streams', { clusterSize: 3, replicas: 1 });
});

afterAll(() => bus?.stop());

const COUNT = 8;
const streams = Array.from({ length: COUNT }, (_, i) => ({ name: `SCALED_${i}`, subjects: [`scaled.${i}.>`] }));
const consumers: ConsumerDefinition[] = streams.map(({ name }) => ({
  stream: name,
  config: { durable_name: 'reader', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All },
}));

describe('ensureStreams on a three-node cluster', () => {
  describe('When streams made with one copy, whose consumers acknowledged one message of two, are ensured again with three', () => {
    it('should deliver each consumer the message it had not acknowledged next, and never the other one again', async () => {
      const jsm = await jetstreamManager(bus.nc);
      const js = jetstream(bus.nc);
      await ensureStreams(jsm, streams, consumers, 1);
      for (const [i, { stream }] of consumers.entries()) {
        for (const id of ['acknowledged', 'waiting']) await js.publish(`scaled.${i}.event`, new TextEncoder().encode(id));
        const taken = await (await js.consumers.get(stream, 'reader')).next({ expires: 5_000 });
        expect(taken?.string()).toBe('acknowledged');
        await taken?.ackAck();
      }
      await ensureStreams(jsm, streams, consumers, 3);
      const next: string[] = [];
      for (const { stream } of consumers) {
        expect((await jsm.consumers.info(stream, 'reader')).config.num_replicas).toBe(3);
        const message = await (await js.consumers.get(stream, 'reader')).next({ expires: 10_000 });
        next.push(`${stream}: ${message?.string()}`);
        await message?.ackAck();
      }
      expect(next).toEqual(streams.map(({ name }) => `${name}: waiting`));
    });
  });
});
