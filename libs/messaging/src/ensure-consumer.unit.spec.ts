import { describe, expect, it } from 'vitest';
import { JetStreamApiError, RetentionPolicy, type ConsumerConfig, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import { ensureConsumer } from './ensure-consumer.js';

/**
 * The consumer API of a server that does what it is asked but answers a delete and a create too late,
 * as nats-server 2.9 often does for a clustered consumer: the request fails with a timeout, and the
 * change shows up a moment later.
 */
function lateAnsweringServer(existing: Partial<ConsumerConfig> & { durable_name: string }, infoFailures = 0) {
  let consumer: Partial<ConsumerConfig> | undefined = existing;
  let failing = infoFailures;
  const added: Partial<ConsumerConfig>[] = [];
  const late = (change: () => void) => {
    setTimeout(change, 300);
    return Promise.reject(new Error('TimeoutError: timeout'));
  };
  const jsm = {
    consumers: {
      info: async () => {
        if (failing-- > 0) throw new JetStreamApiError({ code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' });
        if (!consumer) throw new JetStreamApiError({ code: 404, err_code: 10014, description: 'consumer not found' });
        return { config: consumer, ack_floor: { stream_seq: 41 } } as unknown as ConsumerInfo;
      },
      delete: () => late(() => (consumer = undefined)),
      add: (_stream: string, config: Partial<ConsumerConfig>) => {
        added.push(config);
        return late(() => (consumer = config));
      },
      update: async () => consumer as ConsumerInfo,
    },
    streams: { info: async () => ({ config: { retention: RetentionPolicy.Limits } }) },
  } as unknown as JetStreamManager;
  return { jsm, added, current: () => consumer };
}

describe('ensureConsumer', () => {
  describe('When a consumer is made anew in three copies and the server answers its delete and create too late', () => {
    it('should wait for each to show, and leave the new consumer starting after the old ack floor', async () => {
      const server = lateAnsweringServer({ durable_name: 'd', num_replicas: 1 });
      await ensureConsumer(server.jsm, { stream: 'S', config: { durable_name: 'd' } }, 3);
      expect(server.added).toHaveLength(1);
      expect(server.current()).toMatchObject({ durable_name: 'd', num_replicas: 3, opt_start_seq: 42 });
    });
  });

  describe('When the first questions about an existing consumer fail with something else than "not found"', () => {
    it('should ask again, and make it anew after its ack floor rather than create it over the old one', async () => {
      const server = lateAnsweringServer({ durable_name: 'd', num_replicas: 1 }, 2);
      await ensureConsumer(server.jsm, { stream: 'S', config: { durable_name: 'd' } }, 3);
      expect(server.added).toEqual([expect.objectContaining({ num_replicas: 3, deliver_policy: 'by_start_sequence', opt_start_seq: 42 })]);
    });
  });
});
