import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBus, until, type TestBus } from '@app/testkit';
import { BUCKETS, Kvm, SCHEDULER_TASK_RUNS_CONSUMER, STREAMS, SUBJECTS, ensureTopology, jetstream, jetstreamManager } from './index.js';

// The topology on a real three-node nats-server 2.9 cluster (routes on loopback): every stream and bucket in
// the replica count it is given, and what it holds outliving the server that led it.
let bus: TestBus;

/** Every stream the topology makes: its own, and the ones behind its KV buckets and object stores. */
const EVERY_STREAM = [
  ...Object.values(STREAMS).map((s) => s.name),
  `OBJ_${BUCKETS.renderResults.name}`,
  `OBJ_${BUCKETS.renderInputs.name}`,
  ...Object.values(BUCKETS)
    .filter((b) => b !== BUCKETS.renderResults && b !== BUCKETS.renderInputs)
    .map((b) => `KV_${b.name}`),
];

beforeAll(async () => {
  bus = await startTestBus('replicas', { clusterSize: 3, replicas: 1 });
});

afterAll(() => bus?.stop());

const replicasOf = async (stream: string) => {
  const info = await (await jetstreamManager(bus.nc)).streams.info(stream);
  const peers = new Set([info.cluster?.leader, ...(info.cluster?.replicas ?? []).filter((r) => r.current).map((r) => r.name)]);
  peers.delete(undefined);
  return { configured: info.config.num_replicas, peers: peers.size, leader: info.cluster?.leader };
};

/** Waits until `stream` has a leader (another than `not`) and every one of its peers is current. */
const settled = (stream: string, peers: number, not?: string) =>
  until(
    async () => {
      const now = await replicasOf(stream).catch(() => undefined);
      return !!now?.leader && now.leader !== not && now.peers === peers;
    },
    30_000,
    `${stream} led by a server with ${peers} current peers`,
    200,
  );

const consumerLeader = async (stream: string, durable: string) =>
  (await (await jetstreamManager(bus.nc)).consumers.info(stream, durable).catch(() => undefined))?.cluster?.leader;

describe('Stream and bucket replicas on a three-node cluster', () => {
  describe('When the topology made with one replica is ensured again with three', () => {
    it('should keep every stream and bucket on all three servers', async () => {
      for (const stream of EVERY_STREAM) expect(await replicasOf(stream), stream).toMatchObject({ configured: 1, peers: 1 });
      // A consumer of a kept stream has taken one event of two, and acknowledged it.
      const js = jetstream(bus.nc);
      for (const id of ['run-acknowledged', 'run-waiting']) await js.publish(SUBJECTS.renderEvent('task', 'finished', id), new TextEncoder().encode(id));
      const taken = await (await js.consumers.get(STREAMS.RENDER_EVENTS.name, SCHEDULER_TASK_RUNS_CONSUMER.config.durable_name)).next({ expires: 5_000 });
      expect(taken?.string()).toBe('run-acknowledged');
      await taken?.ackAck();
      await ensureTopology(bus.nc, { replicas: 3 });
      for (const stream of EVERY_STREAM) {
        await settled(stream, 3);
        expect(await replicasOf(stream), stream).toMatchObject({ configured: 3, peers: 3 });
      }
      // The consumers made with one copy have three too.
      await until(
        async () => {
          // Asked while the consumer made anew elects its leader, the server may answer "temporarily unavailable".
          const now = await (await jetstreamManager(bus.nc)).consumers.info(STREAMS.RENDER_JOBS.name, 'renderer-jobs').catch(() => undefined);
          return (now?.cluster?.replicas ?? []).filter((r) => r.current).length === 2;
        },
        30_000,
        'the render jobs consumer on three servers',
        200,
      );
      const info = await (await jetstreamManager(bus.nc)).consumers.info(STREAMS.RENDER_JOBS.name, 'renderer-jobs');
      expect(info.config.num_replicas).toBe(3);
      // Made anew in three copies (see ensureConsumer), the consumer goes on where it was: the acknowledged
      // event is not delivered again, the other one is next.
      const next = await (await js.consumers.get(STREAMS.RENDER_EVENTS.name, SCHEDULER_TASK_RUNS_CONSUMER.config.durable_name)).next({ expires: 5_000 });
      expect(next?.string()).toBe('run-waiting');
      await next?.ackAck();
    });
  });

  describe('When the server leading the render jobs stream is killed', () => {
    it('should still hand out the job published before, and keep the KV entries written before', async () => {
      const js = jetstream(bus.nc);
      await js.publish(SUBJECTS.renderJobRequested, new TextEncoder().encode('job-before-the-kill'), { msgID: 'job-before-the-kill' });
      const kv = await new Kvm(bus.nc).open(BUCKETS.quotaLimits.name);
      await kv.put('account.replicated', 'kept');
      const { leader } = await replicasOf(STREAMS.RENDER_JOBS.name);
      const victim = bus.servers.find((s) => s.name === leader)!;
      await victim.kill({ restart: false });
      try {
        await settled(STREAMS.RENDER_JOBS.name, 2, leader);
        await until(async () => ![undefined, leader].includes(await consumerLeader(STREAMS.RENDER_JOBS.name, 'renderer-jobs')), 30_000, 'a new consumer leader', 200);
        const consumer = await js.consumers.get(STREAMS.RENDER_JOBS.name, 'renderer-jobs');
        const job = await consumer.next({ expires: 5_000 });
        expect(new TextDecoder().decode(job?.data)).toBe('job-before-the-kill');
        await job?.ackAck();
        // The bucket's stream may have been led by the killed server too: read it once it has a leader again.
        await settled(`KV_${BUCKETS.quotaLimits.name}`, 2, leader);
        expect((await kv.get('account.replicated'))?.string()).toBe('kept');
      } finally {
        await victim.start();
      }
      // The restarted server catches up: the stream has all three peers current again.
      await settled(STREAMS.RENDER_JOBS.name, 3);
    });
  });
});
