import type { EventStore, StoredEvent } from '@app/event-store';
import { TASK_EVENT_TYPES, taskIdOfStream } from '../../domain/task/task.js';
import { evolveRunHistory, evolveTaskView, type RunView, type TaskView, type VersionedTaskEvent } from './task-views.projection.js';

export type { RunView, TaskView };

const PAGE = 1_000;

/** The read side of tasks: current tasks and run histories, caught up from the store's global order. */
export interface TaskViews {
  /** Applies every event committed so far (by any replica); concurrent callers share one read. */
  catchUp(): Promise<void>;
  get(accountId: string, taskId: number): TaskView | undefined;
  /** The task whoever owns it (internal use: the scheduler's own checks). */
  byId(taskId: number): TaskView | undefined;
  list(accountId: string): TaskView[];
  /** Newest first; undefined when the task is not the account's. */
  runs(accountId: string, taskId: number): RunView[] | undefined;
  /** The runs whose comparison found a change, newest first; undefined when the task is not the account's. */
  changes(accountId: string, taskId: number): RunView[] | undefined;
  /** Enabled tasks, for the ticker. */
  schedulable(): TaskView[];
  /** Runs prepared ahead, due at or before `at`, neither started nor cancelled yet (of any task). */
  preparedDueBy(at: number): { taskId: number; runId: string }[];
  /** Global position of the last applied event. */
  position(): number;
}

export const toVersionedTaskEvent = (e: StoredEvent): VersionedTaskEvent =>
  ({ type: e.type, data: e.data, version: e.version }) as VersionedTaskEvent;

/**
 * The projection held in memory, rebuilt from position 0 when a replica starts and caught up from its
 * checkpoint afterwards; events at or below the checkpoint are never applied twice. Every replica reads
 * the same store, so a catch-up gives read-your-writes across replicas.
 */
export function taskViews(store: EventStore, opts: { runHistoryLimit: number }): TaskViews {
  const tasks = new Map<number, TaskView>();
  const histories = new Map<number, RunView[]>();
  /** Prepared runs not started or cancelled yet, by run id. */
  const prepared = new Map<string, { taskId: number; runId: string; dueAt: number }>();
  let checkpoint = 0;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;

  const apply = (e: StoredEvent) => {
    const taskId = taskIdOfStream(e.streamId);
    if (taskId === undefined || !TASK_EVENT_TYPES.has(e.type)) return;
    const event = toVersionedTaskEvent(e);
    const view = evolveTaskView(tasks.get(taskId) ?? null, event);
    if (view) tasks.set(taskId, view);
    else tasks.delete(taskId);
    const runs = evolveRunHistory(histories.get(taskId) ?? [], event, opts.runHistoryLimit);
    if (view && runs.length > 0) histories.set(taskId, runs);
    else histories.delete(taskId);
    if (event.type === 'TaskRunPrepared') prepared.set(event.data.runId, { taskId, runId: event.data.runId, dueAt: event.data.dueAt });
    else if (event.type === 'TaskRunStarted' || event.type === 'TaskRunCancelled') prepared.delete(event.data.runId);
    else if (event.type === 'TaskDeleted') for (const [runId, p] of prepared) if (p.taskId === taskId) prepared.delete(runId);
  };

  const readNewEvents = async () => {
    for (;;) {
      const page = await store.readAll({ after: checkpoint, limit: PAGE });
      for (const e of page) {
        if (e.globalPosition <= checkpoint) continue;
        apply(e);
        checkpoint = e.globalPosition;
      }
      if (page.length < PAGE) return;
    }
  };

  const catchUp = (): Promise<void> => {
    // One read at a time; callers arriving during a read share the next one (which sees their writes).
    if (queued) return queued;
    const previous = running ?? Promise.resolve();
    const next: Promise<void> = previous
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        running = next;
        return readNewEvents();
      })
      .finally(() => {
        if (running === next) running = undefined;
      });
    queued = next;
    return next;
  };

  const owned = (accountId: string, taskId: number) => {
    const view = tasks.get(taskId);
    return view && view.accountId === accountId ? view : undefined;
  };

  return {
    catchUp,
    get: owned,
    byId: (taskId) => tasks.get(taskId),
    list: (accountId) => [...tasks.values()].filter((t) => t.accountId === accountId).sort((a, b) => a.id - b.id),
    runs: (accountId, taskId) => (owned(accountId, taskId) ? [...(histories.get(taskId) ?? [])].reverse() : undefined),
    changes: (accountId, taskId) =>
      owned(accountId, taskId) ? [...(histories.get(taskId) ?? [])].reverse().filter((r) => r.change?.status === 'changed') : undefined,
    schedulable: () => [...tasks.values()].filter((t) => t.enabled),
    preparedDueBy: (at) => [...prepared.values()].filter((p) => p.dueAt <= at).map(({ taskId, runId }) => ({ taskId, runId })),
    position: () => checkpoint,
  };
}
