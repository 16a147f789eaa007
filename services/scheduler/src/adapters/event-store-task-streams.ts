import { setTimeout as sleep } from 'node:timers/promises';
import { hasCode } from '@app/errors';
import type { EventStore, StoredEvent } from '@app/event-store';
import { injectTraceContext } from '@app/telemetry';
import { evolve, initialState } from '../domain/task/task.decider.js';
import { taskStreamId, type Task, type TaskEvent } from '../domain/task/task.js';
import type { TaskStreams } from '../application/ports.js';

/** Bump when the shape of `Task` changes: older snapshots are then ignored and the stream is folded from 1. */
const SNAPSHOT_SCHEMA = 1;

export interface TaskStreamsOptions {
  /** Save a snapshot once this many events were appended since the last one. */
  snapshotEvery: number;
  /** Re-decisions after a concurrency conflict before it is rethrown. */
  retries?: number;
  /** Base wait before the second and later re-decisions (jittered, growing with each attempt); the first is immediate. */
  retryDelayMs?: number;
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
 */
export function eventStoreTaskStreams(store: EventStore, opts: TaskStreamsOptions): TaskStreams {
  const retries = opts.retries ?? 5;
  const retryDelayMs = opts.retryDelayMs ?? 10;

  async function read(taskId: number) {
    const streamId = taskStreamId(taskId);
    const snapshot = await store.loadSnapshot(streamId);
    const usable = snapshot && (snapshot.state as { schema?: number }).schema === SNAPSHOT_SCHEMA;
    let state: Task = usable ? (snapshot.state as { task: Task }).task : initialState();
    let version = usable ? snapshot.version : 0;
    const snapshotVersion = version;
    for (const e of await store.readStream(streamId, { fromVersion: version + 1 })) {
      state = evolve(state, toTaskEvent(e));
      version = e.version;
    }
    return { state, version, snapshotVersion };
  }

  return {
    async load(taskId) {
      const { state, version } = await read(taskId);
      return { state, version };
    },

    async change(taskId, decide) {
      const streamId = taskStreamId(taskId);
      for (let attempt = 0; ; attempt++) {
        const { state, version, snapshotVersion } = await read(taskId);
        const events = decide(state);
        if (events.length === 0) return { before: state, after: state, events, version };
        try {
          const metadata = traceMetadata();
          const appended = await store.append(
            streamId,
            events.map((e) => ({ type: e.type, data: e.data, metadata })),
            { expectedVersion: version },
          );
          const after = events.reduce(evolve, state);
          const next = appended.nextExpectedVersion;
          if (next - snapshotVersion >= opts.snapshotEvery) {
            // A snapshot is only a shortcut: failing to save one loses nothing.
            await store.saveSnapshot(streamId, next, { schema: SNAPSHOT_SCHEMA, task: after }).catch(() => undefined);
          }
          return { before: state, after, events, version: next };
        } catch (err) {
          if (!hasCode(err, 'concurrency_conflict') || attempt >= retries) throw err;
          // Another writer got in: read again at once, then back off if it keeps happening.
          if (attempt > 0) await sleep(retryDelayMs * attempt * (0.5 + Math.random()));
        }
      }
    },
  };
}
