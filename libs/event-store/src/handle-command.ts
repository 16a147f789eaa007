import { hasCode } from '@app/errors';
import type { EventStore, NewEvent, Stored } from './event-store.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An aggregate as pure functions (emmett style): decide turns a command into events, evolve folds them. */
export interface Decider<S, C, E extends NewEvent> {
  decide(command: C, state: S): E | E[];
  evolve(state: S, event: Stored<E>): S;
  initialState(): S;
}

export interface HandleCommandOptions {
  /**
   * Re-decisions after a concurrency conflict before the conflict is rethrown (default 5). The first
   * re-decision reads the stream again at once; each later one waits `retryDelayMs` × its rank, jittered.
   */
  retries?: number;
  /** Base wait of the second and later re-decisions (default 10 ms). */
  retryDelayMs?: number;
  /** Save a snapshot once this many events were appended since the last one (default: never). */
  snapshotEvery?: number;
  /** Version of the state's shape in snapshots: a snapshot of another version is ignored (default 1). */
  snapshotSchema?: number;
  /** Stream states kept in memory, so a read only folds the events appended since (default 0: none). */
  cachedStreams?: number;
  /** Metadata of each appended event (e.g. the active trace context), asked for at each append. */
  metadata?: () => Record<string, unknown>;
}

export interface CommandResult<S, E extends NewEvent> {
  /** State the decision was made on. */
  state: S;
  newEvents: Stored<E>[];
  nextExpectedVersion: number;
  newState: S;
}

interface Folded<S> {
  state: S;
  version: number;
  snapshotVersion: number;
}

interface SnapshotState<S> {
  schema: number;
  state: S;
}

/**
 * Commands over event streams, decided on the stream's state and appended at the version read: the store
 * refuses a stale writer (`concurrency_conflict`), and the command is then decided again on a fresh read,
 * with one retry policy (see `retries`). A decision of no events appends nothing.
 *
 * With `cachedStreams`, the last state read or written of each stream is kept in memory: a read then only
 * folds the events after its version, and a command is first decided on that state without reading (the
 * append commits only if the stream is still at that version). With `snapshotEvery`, a stream not in
 * memory is folded from its latest snapshot. Commands on one stream in this process run one after the
 * other, so they never conflict with each other (other processes still can: the version settles those).
 */
export function commandHandler<S, E extends NewEvent>(
  store: EventStore,
  aggregate: Pick<Decider<S, unknown, E>, 'evolve' | 'initialState'>,
  opts: HandleCommandOptions = {},
) {
  const { evolve, initialState } = aggregate;
  const { retries = 5, retryDelayMs = 10, snapshotEvery, snapshotSchema = 1, cachedStreams = 0 } = opts;
  const cache = new Map<string, Folded<S>>();
  /** The command in progress per stream. */
  const changing = new Map<string, Promise<unknown>>();

  const remember = (streamId: string, folded: Folded<S>) => {
    if (cachedStreams <= 0) return;
    const known = cache.get(streamId);
    // Concurrent readers may finish out of order: never go back to an older version.
    if (known && known.version > folded.version) return;
    cache.delete(streamId);
    cache.set(streamId, folded);
    if (cache.size > cachedStreams) cache.delete(cache.keys().next().value!);
  };

  async function fold(streamId: string, from: Folded<S>): Promise<Folded<S>> {
    let { state, version } = from;
    for (const e of await store.readStream(streamId, { fromVersion: version + 1 })) {
      state = evolve(state, e as unknown as Stored<E>);
      version = e.version;
    }
    return { state, version, snapshotVersion: from.snapshotVersion };
  }

  async function read(streamId: string): Promise<Folded<S>> {
    let start = cache.get(streamId);
    if (!start) {
      const snapshot = snapshotEvery ? await store.loadSnapshot(streamId) : null;
      const saved = snapshot?.state as SnapshotState<S> | undefined;
      start =
        snapshot && saved?.schema === snapshotSchema
          ? { state: saved.state, version: snapshot.version, snapshotVersion: snapshot.version }
          : { state: initialState(), version: 0, snapshotVersion: 0 };
    }
    const folded = await fold(streamId, start);
    remember(streamId, folded);
    return folded;
  }

  /** Appends `events` decided on `folded`; the store's refusal when the stream has moved since. */
  async function appendAt(streamId: string, folded: Folded<S>, events: E[]): Promise<CommandResult<S, E> | { conflict: unknown }> {
    const { state, version, snapshotVersion } = folded;
    let appended;
    try {
      const metadata = opts.metadata?.();
      const toAppend = metadata ? events.map((e) => ({ ...e, metadata: { ...metadata, ...e.metadata } })) : events;
      appended = await store.append(streamId, toAppend, { expectedVersion: version });
    } catch (err) {
      if (!hasCode(err, 'concurrency_conflict')) throw err;
      return { conflict: err };
    }
    const newEvents = appended.events as unknown as Stored<E>[];
    const newState = newEvents.reduce(evolve, state);
    const next = appended.nextExpectedVersion;
    let savedAt = snapshotVersion;
    if (snapshotEvery && next - snapshotVersion >= snapshotEvery) {
      const snapshot: SnapshotState<S> = { schema: snapshotSchema, state: newState };
      // A snapshot is only a shortcut: failing to save one loses nothing.
      await store.saveSnapshot(streamId, next, snapshot).then(
        () => (savedAt = next),
        () => undefined,
      );
    }
    remember(streamId, { state: newState, version: next, snapshotVersion: savedAt });
    return { state, newEvents, nextExpectedVersion: next, newState };
  }

  const asList = (decided: E | E[]): E[] => (Array.isArray(decided) ? decided : [decided]);

  async function handleNow(streamId: string, decide: (state: S) => E | E[]): Promise<CommandResult<S, E>> {
    // First on the state in memory, without reading. A decision of nothing (or a refusal) there proves
    // nothing, as that state may be old: then, as after a conflict, the stream is read.
    const known = cache.get(streamId);
    if (known) {
      let optimistic: E[] = [];
      try {
        optimistic = asList(decide(known.state));
      } catch {
        // decided again below, on a fresh read
      }
      if (optimistic.length > 0) {
        const result = await appendAt(streamId, known, optimistic);
        if (!('conflict' in result)) return result;
      }
    }
    for (let attempt = 0; ; attempt++) {
      const folded = await read(streamId);
      const events = asList(decide(folded.state));
      if (events.length === 0) return { state: folded.state, newEvents: [], nextExpectedVersion: folded.version, newState: folded.state };
      const result = await appendAt(streamId, folded, events);
      if (!('conflict' in result)) return result;
      if (attempt >= retries) throw result.conflict;
      // Another writer got in: read again at once, then back off if it keeps happening.
      if (attempt > 0) await sleep(retryDelayMs * attempt * (0.5 + Math.random()));
    }
  }

  return {
    /** The stream's state and version (0 when it does not exist). */
    async load(streamId: string): Promise<{ state: S; version: number }> {
      const { state, version } = await read(streamId);
      return { state, version };
    },

    /** Decides with `decide` on the stream's state and appends the events at the version read. */
    handle(streamId: string, decide: (state: S) => E | E[]): Promise<CommandResult<S, E>> {
      const previous = changing.get(streamId) ?? Promise.resolve();
      const next = previous.then(() => handleNow(streamId, decide));
      const settled = next.catch(() => undefined);
      changing.set(streamId, settled);
      void settled.then(() => {
        if (changing.get(streamId) === settled) changing.delete(streamId);
      });
      return next;
    },
  };
}

export type CommandHandler<S, E extends NewEvent> = ReturnType<typeof commandHandler<S, E>>;

/** One command on one stream, read from the store (no cache, no snapshots): `commandHandler` for a single use. */
export function handleCommand<S, C, E extends NewEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  opts: HandleCommandOptions = {},
): Promise<CommandResult<S, E>> {
  return commandHandler(store, decider, opts).handle(streamId, (state) => decider.decide(command, state));
}
