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

  describe('When built with an empty batch', () => {
    it('should refuse the options', () => {
      expect(() => outboxRelay(fakeEventStore(), async () => undefined, { intervalMs: 10, batch: 0 })).toThrow(RangeError);
    });
  });
});
