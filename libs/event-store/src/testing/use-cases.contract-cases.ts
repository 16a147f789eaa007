import { describe, expect, it, vi } from 'vitest';
import { aggregateStream } from '../aggregate-stream.js';
import type { EventStore, NewEvent, StoredEvent } from '../event-store.js';
import { handleCommand, type Decider } from '../handle-command.js';
import { outboxMessageId, outboxRelay } from '../outbox-relay.js';
import { happened, happenings, newStreamId, range, versionsOf, type ContractHarness } from './contract-harness.js';

type Counted = NewEvent<'Incremented', { by: number }>;
interface Counter {
  total: number;
}

const counter: Decider<Counter, { by: number }, Counted> = {
  initialState: () => ({ total: 0 }),
  evolve: (state, { data }) => ({ total: state.total + data.by }),
  decide: ({ by }) => (by === 0 ? [] : [{ type: 'Incremented', data: { by } }]),
};

/** A broker that drops a message id it has seen, as JetStream does with `Nats-Msg-Id`. */
function dedupingBroker() {
  const delivered = new Map<string, StoredEvent>();
  let publishes = 0;
  return {
    delivered,
    publishes: () => publishes,
    publish: async (e: StoredEvent) => {
      publishes++;
      if (!delivered.has(outboxMessageId(e))) delivered.set(outboxMessageId(e), e);
    },
  };
}

const crashingOnMark = (store: EventStore): EventStore => ({
  ...store,
  markPublished: async () => {
    throw new Error('relay crashed before marking');
  },
});

/** The helpers built on the port: folding, command handling with retries, and the outbox relay. */
export function useCasesContract({ open }: ContractHarness): void {
  describe('aggregateStream', () => {
    describe('When the stream has events', () => {
      it('should fold them and return the stream version', async () => {
        const { store } = await open();
        const streamId = newStreamId();
        await store.append(streamId, range(1, 3).map((by) => ({ type: 'Incremented', data: { by } })), { expectedVersion: 0 });

        const result = await aggregateStream(store, streamId, counter.evolve, counter.initialState);

        expect(result).toEqual({ state: { total: 6 }, version: 3 });
      });
    });

    describe('When it starts from a snapshot', () => {
      it('should fold only the events after the snapshot', async () => {
        const { store } = await open();
        const streamId = newStreamId();
        await store.append(streamId, range(1, 3).map((by) => ({ type: 'Incremented', data: { by } })), { expectedVersion: 0 });
        await store.saveSnapshot(streamId, 2, { total: 100 });

        const result = await aggregateStream(store, streamId, counter.evolve, counter.initialState, { fromSnapshot: true });

        expect(result).toEqual({ state: { total: 103 }, version: 3 });
      });
    });
  });

  describe('handleCommand', () => {
    describe('When the command decides events', () => {
      it('should append them at the version it read and return the new state', async () => {
        const { store } = await open();
        const streamId = newStreamId();
        await handleCommand(store, streamId, counter, { by: 2 });

        const result = await handleCommand(store, streamId, counter, { by: 5 });

        expect(result.newState).toEqual({ total: 7 });
        expect(result.nextExpectedVersion).toBe(2);
        expect(result.newEvents.map((e) => [e.version, e.type, e.data])).toEqual([[2, 'Incremented', { by: 5 }]]);
      });
    });

    describe('When the command decides nothing', () => {
      it('should append nothing', async () => {
        const { store } = await open();
        const streamId = newStreamId();
        await handleCommand(store, streamId, counter, { by: 1 });

        const result = await handleCommand(store, streamId, counter, { by: 0 });

        expect(result).toEqual({ state: { total: 1 }, newEvents: [], nextExpectedVersion: 1, newState: { total: 1 } });
        expect(await store.readStream(streamId)).toHaveLength(1);
      });
    });

    describe('When commands race on one stream', () => {
      it('should retry the conflicts until each command is applied once', async () => {
        const { store } = await open();
        const streamId = newStreamId();

        const results = await Promise.all([1, 2, 3].map((by) => handleCommand(store, streamId, counter, { by })));

        const events = await store.readStream(streamId);
        expect(versionsOf(events)).toEqual([1, 2, 3]);
        expect(events.map((e) => (e.data as { by: number }).by).sort()).toEqual([1, 2, 3]);
        expect(results.map((r) => r.newState.total).sort((a, b) => a - b).at(-1)).toBe(6);
      });
    });
  });

  describe('outboxRelay', () => {
    describe('When it is flushed', () => {
      it('should publish the pending events in global order and mark them published', async () => {
        const { store } = await open();
        const [a, b] = [newStreamId(), newStreamId()];
        await store.append(a, [happened(1)], { expectedVersion: 0 });
        await store.append(b, [happened(2), happened(3)], { expectedVersion: 0 });
        await store.append(a, [happened(4)], { expectedVersion: 1 });
        const broker = dedupingBroker();
        const relay = outboxRelay(store, broker.publish, { intervalMs: 60_000, batch: 3 });

        expect(await relay.flush()).toBe(4);
        expect(await relay.flush()).toBe(0);

        expect([...broker.delivered.keys()]).toEqual([`${a}:1`, `${b}:1`, `${b}:2`, `${a}:2`]);
        expect(await store.pendingOutbox(10)).toEqual([]);
      });
    });

    describe('When the relay crashes between publishing and marking', () => {
      it('should publish again on restart and the broker should deliver each event once', async () => {
        const { store } = await open();
        const streamId = newStreamId();
        await store.append(streamId, happenings(1, 5), { expectedVersion: 0 });
        const broker = dedupingBroker();

        await expect(outboxRelay(crashingOnMark(store), broker.publish, { intervalMs: 60_000, batch: 10 }).flush()).rejects.toThrow(
          'relay crashed',
        );
        expect(await outboxRelay(store, broker.publish, { intervalMs: 60_000, batch: 10 }).flush()).toBe(5);

        expect(broker.publishes()).toBe(10);
        expect([...broker.delivered.keys()]).toEqual(range(1, 5).map((v) => `${streamId}:${v}`));
        expect(await store.pendingOutbox(10)).toEqual([]);
      });
    });

    describe('When a publish fails', () => {
      it('should mark the events before it and publish none after it', async () => {
        const { store } = await open();
        const streamId = newStreamId();
        await store.append(streamId, happenings(1, 4), { expectedVersion: 0 });
        const broker = dedupingBroker();
        const failOnThird = async (e: StoredEvent) => {
          if (e.version === 3) throw new Error('broker unavailable');
          await broker.publish(e);
        };

        await expect(outboxRelay(store, failOnThird, { intervalMs: 60_000, batch: 10 }).flush()).rejects.toThrow('unavailable');

        expect([...broker.delivered.values()].map((e) => e.version)).toEqual([1, 2]);
        expect(versionsOf(await store.pendingOutbox(10))).toEqual([3, 4]);
      });
    });

    describe('When it is started', () => {
      it('should publish newly appended events on its own until stopped', async () => {
        const { store } = await open();
        const streamId = newStreamId();
        const broker = dedupingBroker();
        const relay = outboxRelay(store, broker.publish, { intervalMs: 10, batch: 10 });

        relay.start();
        await store.append(streamId, [happened(1), happened(2)], { expectedVersion: 0 });
        await vi.waitFor(() => expect(broker.delivered.size).toBe(2), { timeout: 5_000 });
        await relay.stop();
        await store.append(streamId, [happened(3)], { expectedVersion: 2 });
        await new Promise((resolve) => setTimeout(resolve, 50));

        expect(broker.delivered.size).toBe(2);
        expect(versionsOf(await store.pendingOutbox(10))).toEqual([3]);
      });
    });
  });
}
