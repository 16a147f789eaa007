import { describe, expect, it } from 'vitest';
import { JetStreamApiError, RetentionPolicy, type ConsumerConfig, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import { ensureConsumer } from './ensure-consumer.js';

interface ServerBehaviour {
  /** Questions about the consumer answered 503 first. */
  infoFailures?: number;
  /** Questions answered first by a server without the consumer's state: no leader, an ack floor of 0. */
  leaderlessAnswers?: number;
  /** Consumers made that start at the stream's first message whatever start they were given. */
  emptyStreamStarts?: number;
}

/**
 * The consumer API of a server that does what it is asked but answers a delete and a create too late,
 * as nats-server 2.9 often does for a clustered consumer: the request fails with a timeout, and the
 * change shows up a moment later. The consumer it holds has acknowledged up to stream sequence 41.
 */
function lateAnsweringServer(existing: (Partial<ConsumerConfig> & { durable_name: string }) | undefined, behaviour: ServerBehaviour = {}) {
  let consumer: Partial<ConsumerConfig> | undefined = existing;
  let { infoFailures = 0, leaderlessAnswers = 0, emptyStreamStarts = 0 } = behaviour;
  /** The stream sequence the consumer it holds has delivered up to. */
  let delivered = 41;
  const added: Partial<ConsumerConfig>[] = [];
  const late = (change: () => void) => {
    setTimeout(change, 300);
    return Promise.reject(new Error('TimeoutError: timeout'));
  };
  const jsm = {
    consumers: {
      info: async () => {
        if (infoFailures-- > 0) throw new JetStreamApiError({ code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' });
        if (!consumer) throw new JetStreamApiError({ code: 404, err_code: 10014, description: 'consumer not found' });
        const led = leaderlessAnswers-- <= 0;
        const state = led ? { ack_floor: { stream_seq: Math.min(41, delivered) }, delivered: { stream_seq: delivered } } : { ack_floor: { stream_seq: 0 }, delivered: { stream_seq: 0 } };
        return { config: consumer, cluster: { name: 'c', leader: led ? 'nats-1' : undefined }, ...state } as unknown as ConsumerInfo;
      },
      delete: () => late(() => (consumer = undefined)),
      add: (_stream: string, config: Partial<ConsumerConfig>) => {
        added.push(config);
        return late(() => {
          consumer = config;
          delivered = emptyStreamStarts-- > 0 ? 0 : (config.opt_start_seq ?? 1) - 1;
        });
      },
      update: async () => consumer as ConsumerInfo,
    },
    streams: { info: async () => ({ created: STREAM_CREATED, config: { retention: RetentionPolicy.Limits }, state: { last_seq: 60 } }) },
  } as unknown as JetStreamManager;
  return { jsm, added, current: () => consumer };
}

const STREAM_CREATED = '2026-12-01T10:00:00Z';
const knownFloor = (floor: number, streamCreated = STREAM_CREATED) => new Map([['S/d', { floor, streamCreated }]]);
const definition = { stream: 'S', config: { durable_name: 'd' } };
const resumedAt = (seq: number) => expect.objectContaining({ num_replicas: 3, deliver_policy: 'by_start_sequence', opt_start_seq: seq });

describe('ensureConsumer', () => {
  describe('When a consumer is made anew in three copies and the server answers its delete and create too late', () => {
    it('should wait for each to show, and leave the new consumer starting after the old ack floor', async () => {
      const server = lateAnsweringServer({ durable_name: 'd', num_replicas: 1 });
      await ensureConsumer(server.jsm, definition, 3);
      expect(server.added).toHaveLength(1);
      expect(server.current()).toMatchObject({ durable_name: 'd', num_replicas: 3, opt_start_seq: 42 });
    });
  });

  describe('When the first questions about an existing consumer fail with something else than "not found"', () => {
    it('should ask again, and make it anew after its ack floor rather than create it over the old one', async () => {
      const server = lateAnsweringServer({ durable_name: 'd', num_replicas: 1 }, { infoFailures: 2 });
      await ensureConsumer(server.jsm, definition, 3);
      expect(server.added).toEqual([resumedAt(42)]);
    });
  });

  describe('When a server without the consumer answers for it first, naming no leader and an ack floor of 0', () => {
    it('should ask until its leader answers, and start after the floor the leader states', async () => {
      const server = lateAnsweringServer({ durable_name: 'd', num_replicas: 1 }, { leaderlessAnswers: 3 });
      await ensureConsumer(server.jsm, definition, 3);
      expect(server.added).toEqual([resumedAt(42)]);
    });
  });

  describe('When the ack floor read before the streams changed is higher than the one read now', () => {
    it('should start after the higher one', async () => {
      const server = lateAnsweringServer({ durable_name: 'd', num_replicas: 1 });
      await ensureConsumer(server.jsm, definition, 3, knownFloor(57));
      expect(server.added).toEqual([resumedAt(58)]);
    });
  });

  describe('When a consumer known to exist before is gone (deleted by an earlier try that failed to make it again)', () => {
    it('should make it after its known floor rather than from the stream start', async () => {
      const server = lateAnsweringServer(undefined);
      await ensureConsumer(server.jsm, definition, 3, knownFloor(41));
      expect(server.added).toEqual([resumedAt(42)]);
    });
  });

  describe('When the floor read before belongs to a stream made anew since (its sequences start over)', () => {
    it('should not start after it', async () => {
      const server = lateAnsweringServer({ durable_name: 'd', num_replicas: 1 });
      await ensureConsumer(server.jsm, definition, 3, knownFloor(57, '2026-11-30T08:00:00Z'));
      expect(server.added).toEqual([resumedAt(42)]);
    });
  });

  describe('When a consumer is created from a stream copy still empty and starts at the first message', () => {
    it('should make it again until it starts where it was told', async () => {
      const server = lateAnsweringServer({ durable_name: 'd', num_replicas: 1 }, { emptyStreamStarts: 2 });
      await ensureConsumer(server.jsm, definition, 3);
      expect(server.added).toEqual([resumedAt(42), resumedAt(42), resumedAt(42)]);
      expect(server.current()).toMatchObject({ opt_start_seq: 42 });
    });
  });

  describe('When a consumer that does not exist is ensured', () => {
    it('should create it from its definition', async () => {
      const server = lateAnsweringServer(undefined);
      await ensureConsumer(server.jsm, definition, 3);
      expect(server.added).toEqual([{ durable_name: 'd', num_replicas: 3 }]);
    });
  });
});
