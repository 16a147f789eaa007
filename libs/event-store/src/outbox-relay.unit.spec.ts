import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { StoredEvent } from './event-store.js';
import { outboxRelay } from './outbox-relay.js';
import { fakeEventStore } from './testing/fake-event-store.js';

const pendingEvent = (version: number): StoredEvent => ({
  id: randomUUID(),
  type: 'Happened',
  data: {},
  metadata: {},
  streamId: 'test-stream',
  version,
  globalPosition: version,
  recordedAt: new Date(),
});

/** An outbox in memory: pending until marked. */
function memoryOutbox(events: StoredEvent[]) {
  const published = new Set<string>();
  return fakeEventStore({
    pendingOutbox: async (limit) => events.filter((e) => !published.has(e.id)).slice(0, limit),
    markPublished: async (ids) => ids.forEach((id) => published.add(id)),
  });
}

describe('outboxRelay', () => {
  describe('When flushes overlap', () => {
    it('should run them one after the other and publish each event once', async () => {
      const events = [1, 2, 3, 4, 5].map(pendingEvent);
      const publish = vi.fn(async (_e: StoredEvent) => new Promise<void>((resolve) => setTimeout(resolve, 1)));
      const relay = outboxRelay(memoryOutbox(events), publish, { intervalMs: 60_000, batch: 2 });

      const counts = await Promise.all([relay.flush(), relay.flush(), relay.flush()]);

      expect(counts).toEqual([5, 0, 0]);
      expect(publish.mock.calls.map(([e]) => e.version)).toEqual([1, 2, 3, 4, 5]);
    });
  });

  describe('When several publishes are in flight and one fails', () => {
    it('should start them in order, mark only the events before the failure and publish the rest again', async () => {
      const events = [1, 2, 3, 4, 5].map(pendingEvent);
      const started: number[] = [];
      let failing = true;
      const publish = async (e: StoredEvent) => {
        started.push(e.version);
        await new Promise((resolve) => setTimeout(resolve, 6 - e.version));
        if (failing && e.version === 3) throw new Error('broker unavailable');
      };
      const relay = outboxRelay(memoryOutbox(events), publish, { intervalMs: 60_000, batch: 10, inFlight: 4 });

      await expect(relay.flush()).rejects.toThrow('unavailable');
      expect(started).toEqual([1, 2, 3, 4]);
      failing = false;
      expect(await relay.flush()).toBe(3);
      expect(started.slice(4)).toEqual([3, 4, 5]);
    });
  });

  describe('When only some events are relayed', () => {
    it('should publish those and mark every event published', async () => {
      const events = [1, 2, 3, 4, 5].map(pendingEvent);
      const store = memoryOutbox(events);
      const publish = vi.fn(async (_e: StoredEvent) => undefined);
      const relay = outboxRelay(store, publish, { intervalMs: 60_000, batch: 2, relays: (e) => e.version % 2 === 0 });

      expect(await relay.flush()).toBe(5);

      expect(publish.mock.calls.map(([e]) => e.version)).toEqual([2, 4]);
      expect(await store.pendingOutbox(10)).toEqual([]);
    });
  });

  describe('When built with an empty batch', () => {
    it('should refuse the options', () => {
      expect(() => outboxRelay(fakeEventStore(), async () => undefined, { intervalMs: 10, batch: 0 })).toThrow(RangeError);
      expect(() => outboxRelay(fakeEventStore(), async () => undefined, { intervalMs: 10, batch: 1, inFlight: 0 })).toThrow(RangeError);
    });
  });
});
