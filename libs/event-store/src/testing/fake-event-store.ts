import { vi } from 'vitest';
import type { EventStore } from '../event-store.js';

const unexpected = (name: string) => () => Promise.reject(new Error(`fake event store: unexpected ${name}()`));

/** An EventStore of function fields for unit tests; each one not overridden rejects when called. */
export function fakeEventStore(overrides: Partial<EventStore> = {}): EventStore {
  return {
    append: vi.fn(unexpected('append')),
    readStream: vi.fn(unexpected('readStream')),
    readAll: vi.fn(unexpected('readAll')),
    saveSnapshot: vi.fn(unexpected('saveSnapshot')),
    loadSnapshot: vi.fn(unexpected('loadSnapshot')),
    pendingOutbox: vi.fn(unexpected('pendingOutbox')),
    markPublished: vi.fn(unexpected('markPublished')),
    close: vi.fn(async () => undefined),
    ...overrides,
  };
}
