import type { EventStore, NewEvent, StoredEvent } from './event-store.js';

export interface AggregateOptions {
  /** Start from the stream's snapshot, if any, and fold only the events after it. */
  fromSnapshot?: boolean;
}

/**
 * Folds a stream into state. The store does not check event types: `evolve` receives the stored events
 * as they were appended.
 * `version` is the stream's version (0 when it does not exist), the expected version of the next append.
 */
export async function aggregateStream<S, E extends NewEvent = StoredEvent>(
  store: EventStore,
  streamId: string,
  evolve: (state: S, event: E) => S,
  initial: () => S,
  opts: AggregateOptions = {},
): Promise<{ state: S; version: number }> {
  const snapshot = opts.fromSnapshot ? await store.loadSnapshot(streamId) : null;
  let state = snapshot ? (snapshot.state as S) : initial();
  let version = snapshot?.version ?? 0;
  for (const event of await store.readStream(streamId, { fromVersion: version + 1 })) {
    state = evolve(state, event as unknown as E);
    version = event.version;
  }
  return { state, version };
}
