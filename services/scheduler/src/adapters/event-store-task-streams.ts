import { setTimeout as sleep } from 'node:timers/promises';
import { hasCode } from '@app/errors';
import type { EventStore, StoredEvent } from '@app/event-store';
import { injectTraceContext } from '@app/telemetry';
import { evolve, initialState } from '../domain/task/task.decider.js';
import { taskStreamId, type Task, type TaskEvent } from '../domain/task/task.js';
import type { TaskChange, TaskStreams } from '../application/ports.js';

/** Bump when the shape of `Task` changes: older snapshots are then ignored and the stream is folded from 1. */
const SNAPSHOT_SCHEMA = 2;

export interface TaskStreamsOptions {
  /** Save a snapshot once this many events were appended since the last one. */
  snapshotEvery: number;
  /** Re-decisions after a concurrency conflict before it is rethrown. */
  retries?: number;
  /** Base wait before the second and later re-decisions (jittered, growing with each attempt); the first is immediate. */
  retryDelayMs?: number;
  /** Task states kept in memory, so a read only folds the events appended since (default 20,000 tasks). */
  cachedTasks?: number;
}

interface Folded {
  state: Task;
  version: number;
  snapshotVersion: number;
}

/** The events `decide` chose, or undefined when it refused. */
function tryDeciding(decide: () => TaskEvent[]): TaskEvent[] | undefined {
  try {
    return decide();
  } catch {
    return undefined;
  }
}

const toTaskEvent = (e: StoredEvent): TaskEvent => ({ type: e.type, data: e.data }) as TaskEvent;

/** Event metadata: the active trace context, so the relayed event continues the trace that caused it. */
const traceMetadata = (): Record<string, unknown> =>
  injectTraceContext({} as Record<string, unknown>, (carrier, key, value) => {
    carrier[key] = value;
  });

/**
 * Task streams (`task-<id>`) in the event store: folded from their latest snapshot, appended at the version
 * read (the store refuses a stale writer, which is what makes a run claim exactly-once across replicas).
 * The last state read or written of each task is kept in memory: a read then only asks the store for the
 * events after its version (none, usually), so it is always as fresh as a full read, and much cheaper.
 */
export function eventStoreTaskStreams(store: EventStore, opts: TaskStreamsOptions): TaskStreams {
  const retries = opts.retries ?? 5;
  const retryDelayMs = opts.retryDelayMs ?? 10;
  const cache = new Map<number, Folded>();
  /** The change in progress per task: changes of one task in this process run one after the other. */
  const changing = new Map<number, Promise<unknown>>();
  const cachedTasks = opts.cachedTasks ?? 20_000;

  const remember = (taskId: number, folded: Folded) => {
    const known = cache.get(taskId);
    // Concurrent readers may finish out of order: never go back to an older version.
    if (known && known.version > folded.version) return;
    cache.delete(taskId);
    cache.set(taskId, folded);
    if (cache.size > cachedTasks) cache.delete(cache.keys().next().value!);
  };

  async function read(taskId: number): Promise<Folded> {
    const streamId = taskStreamId(taskId);
    const known = cache.get(taskId);
    if (known) {
      let { state, version } = known;
      for (const e of await store.readStream(streamId, { fromVersion: version + 1 })) {
        state = evolve(state, toTaskEvent(e));
        version = e.version;
      }
      const folded = { state, version, snapshotVersion: known.snapshotVersion };
      remember(taskId, folded);
      return folded;
    }
    const snapshot = await store.loadSnapshot(streamId);
    const usable = snapshot && (snapshot.state as { schema?: number }).schema === SNAPSHOT_SCHEMA;
    let state: Task = usable ? (snapshot.state as { task: Task }).task : initialState();
    let version = usable ? snapshot.version : 0;
    const snapshotVersion = version;
    for (const e of await store.readStream(streamId, { fromVersion: version + 1 })) {
      state = evolve(state, toTaskEvent(e));
      version = e.version;
    }
    const folded = { state, version, snapshotVersion };
    remember(taskId, folded);
    return folded;
  }

  async function changeNow(taskId: number, decide: (state: Task) => TaskEvent[]): Promise<TaskChange> {
    const streamId = taskStreamId(taskId);

    /** Appends what `decide` chose on `folded`, or gives the store's refusal when the stream has moved since. */
    const appendAt = async (folded: Folded, events: TaskEvent[]): Promise<TaskChange | { conflict: unknown }> => {
      const { state, version, snapshotVersion } = folded;
      try {
        const metadata = traceMetadata();
        const appended = await store.append(
          streamId,
          events.map((e) => ({ type: e.type, data: e.data, metadata })),
          { expectedVersion: version },
        );
        const after = events.reduce(evolve, state);
        const next = appended.nextExpectedVersion;
        let saved = snapshotVersion;
        if (next - snapshotVersion >= opts.snapshotEvery) {
          // A snapshot is only a shortcut: failing to save one loses nothing.
          await store.saveSnapshot(streamId, next, { schema: SNAPSHOT_SCHEMA, task: after }).then(
            () => (saved = next),
            () => undefined,
          );
        }
        remember(taskId, { state: after, version: next, snapshotVersion: saved });
        return { before: state, after, events, version: next };
      } catch (err) {
        if (!hasCode(err, 'concurrency_conflict')) throw err;
        return { conflict: err };
      }
    };

    // First on the state in memory, without reading: the append commits only if the stream is still at
    // that version, when that state is the stream's. A decision of nothing (or a refusal) there proves
    // nothing, as the state may be old: then, as after a conflict, the stream is read.
    const known = cache.get(taskId);
    const optimistic = known ? tryDeciding(() => decide(known.state)) : undefined;
    if (known && optimistic && optimistic.length > 0) {
      const change = await appendAt(known, optimistic);
      if (!('conflict' in change)) return change;
    }
    for (let attempt = 0; ; attempt++) {
      const folded = await read(taskId);
      const events = decide(folded.state);
      if (events.length === 0) return { before: folded.state, after: folded.state, events, version: folded.version };
      const change = await appendAt(folded, events);
      if (!('conflict' in change)) return change;
      if (attempt >= retries) throw change.conflict;
      // Another writer got in: read again at once, then back off if it keeps happening.
      if (attempt > 0) await sleep(retryDelayMs * attempt * (0.5 + Math.random()));
    }
  }

  return {
    async load(taskId) {
      const { state, version } = await read(taskId);
      return { state, version };
    },

    change(taskId, decide) {
      // In turn, so that many dispatchers of one task's runs never race each other into conflicts (other
      // replicas still can: the expected version settles those).
      const previous = changing.get(taskId) ?? Promise.resolve();
      const next = previous.then(() => changeNow(taskId, decide));
      const settled = next.catch(() => undefined);
      changing.set(taskId, settled);
      void settled.then(() => {
        if (changing.get(taskId) === settled) changing.delete(taskId);
      });
      return next;
    },
  };
}
