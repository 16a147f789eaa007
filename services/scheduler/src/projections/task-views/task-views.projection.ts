import type { RunChange } from '../../domain/monitor/monitor.js';
import type { RunError, RunTrigger, TaskDefinition, TaskEvent } from '../../domain/task/task.js';

/** The current task, as the API returns it, plus what the ticker needs to find its next occurrence. */
export interface TaskView extends TaskDefinition {
  id: number;
  accountId: string;
  enabled: boolean;
  /** Unix ms. */
  created: number;
  /** Start of the latest run (Unix ms), null before the first. */
  lastRun: number | null;
  /** Runs that started. */
  runs: number;
  scheduleSince: number;
  lastDueAt: number | null;
  /** Version of the task's stream this view reflects. */
  version: number;
}

export type RunStatus = 'running' | 'succeeded' | 'failed';

export interface RunView {
  runId: string;
  taskId: number;
  trigger: RunTrigger;
  /** The occurrence's instant; for a manual run, when it was asked for. */
  dueAt: number;
  startedAt: number;
  finishedAt: number | null;
  status: RunStatus;
  /** Name of the result in the render-results object store. */
  file: string | null;
  error: RunError | null;
  /** A monitoring task's comparison of this run with the last successful one (null until compared). */
  change: (RunChange & { comparedAt: number }) | null;
}

/** A task event with its position in its stream. */
export type VersionedTaskEvent = TaskEvent & { version: number };

/** Current task: null when it does not exist (never created, or deleted). */
export function evolveTaskView(view: TaskView | null, event: VersionedTaskEvent): TaskView | null {
  const { version } = event;
  switch (event.type) {
    case 'TaskCreated': {
      const { taskId, accountId, definition, enabled, createdAt } = event.data;
      return {
        id: taskId,
        accountId,
        ...definition,
        enabled,
        created: createdAt,
        lastRun: null,
        runs: 0,
        scheduleSince: createdAt,
        lastDueAt: null,
        version,
      };
    }
    case 'TaskUpdated': {
      if (!view) return null;
      const { changes, updatedAt } = event.data;
      const scheduleChanged = 'frequency' in changes || 'crontab' in changes || 'timezone' in changes;
      return { ...view, ...changes, scheduleSince: scheduleChanged ? updatedAt : view.scheduleSince, version };
    }
    case 'TaskEnabled':
      return view && { ...view, enabled: true, scheduleSince: event.data.enabledAt, version };
    case 'TaskDisabled':
      return view && { ...view, enabled: false, version };
    case 'TaskDeleted':
      return null;
    case 'TaskRunPrepared':
      return view && { ...view, lastDueAt: event.data.dueAt, version };
    case 'TaskRunCancelled':
      return view && { ...view, lastDueAt: event.data.lastDueAt, version };
    case 'TaskRunStarted':
      return (
        view && {
          ...view,
          runs: view.runs + 1,
          lastRun: event.data.startedAt,
          lastDueAt: event.data.trigger === 'manual' ? view.lastDueAt : Math.max(event.data.dueAt, view.lastDueAt ?? 0),
          version,
        }
      );
    case 'TaskRunDispatched':
    case 'TaskRunFinished':
    case 'TaskRunCompared':
    case 'TaskRunConfirming':
    case 'TaskFailing':
    case 'TaskRecovered':
      return view && { ...view, version };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** Run history of one task, oldest first, keeping the latest `limit` runs. */
export function evolveRunHistory(runs: readonly RunView[], event: VersionedTaskEvent, limit: number): RunView[] {
  switch (event.type) {
    case 'TaskRunStarted': {
      const { taskId, runId, dueAt, startedAt, trigger } = event.data;
      const run: RunView = {
        runId,
        taskId,
        trigger: trigger ?? 'schedule',
        dueAt,
        startedAt,
        finishedAt: null,
        status: 'running',
        file: null,
        error: null,
        change: null,
      };
      return [...runs, run].slice(-limit);
    }
    case 'TaskRunFinished': {
      const { runId, outcome, finishedAt, file, error } = event.data;
      return runs.map((r) =>
        r.runId === runId ? { ...r, status: outcome, finishedAt, file: file ?? null, error: error ?? null } : r,
      );
    }
    case 'TaskRunCompared': {
      const { runId, change, comparedAt } = event.data;
      return runs.map((r) => (r.runId === runId ? { ...r, change: { ...change, comparedAt } } : r));
    }
    case 'TaskDeleted':
      return [];
    default:
      return runs as RunView[];
  }
}
