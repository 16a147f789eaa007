import { commandHandler, type EventStore } from '@app/event-store';
import { injectTraceContext } from '@app/telemetry';
import { evolve, initialState } from '../domain/task/task.decider.js';
import { taskStreamId, type Task, type TaskEvent } from '../domain/task/task.js';
import type { TaskStreams } from '../application/ports.js';

/** Bump when the shape of `Task` changes: older snapshots are then ignored and the stream is folded from 1. */
const SNAPSHOT_SCHEMA = 3;

export interface TaskStreamsOptions {
  /** Save a snapshot once this many events were appended since the last one. */
  snapshotEvery: number;
  /** Task states kept in memory, so a read only folds the events appended since (default 20,000 tasks). */
  cachedTasks?: number;
}

/** Event metadata: the active trace context, so the relayed event continues the trace that caused it. */
const traceMetadata = (): Record<string, unknown> =>
  injectTraceContext({} as Record<string, unknown>, (carrier, key, value) => {
    carrier[key] = value;
  });

/**
 * Task streams (`task-<id>`) through the event store's command handler: folded from their latest snapshot,
 * appended at the version read (the store refuses a stale writer, which is what makes a run claim
 * exactly-once across replicas), the last state of each task kept in memory.
 */
export function eventStoreTaskStreams(store: EventStore, opts: TaskStreamsOptions): TaskStreams {
  const handler = commandHandler<Task, TaskEvent>(store, { evolve, initialState }, {
    snapshotEvery: opts.snapshotEvery,
    snapshotSchema: SNAPSHOT_SCHEMA,
    cachedStreams: opts.cachedTasks ?? 20_000,
    metadata: traceMetadata,
  });
  return {
    load: (taskId) => handler.load(taskStreamId(taskId)),
    async change(taskId, decide) {
      const result = await handler.handle(taskStreamId(taskId), decide);
      const events = result.newEvents.map((e) => ({ type: e.type, data: e.data }) as TaskEvent);
      return { before: result.state, after: result.newState, events, version: result.nextExpectedVersion };
    },
  };
}
