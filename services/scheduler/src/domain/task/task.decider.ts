import { AppError } from '@app/errors';
import { sameMonitor } from '../monitor/monitor.js';
import { decideHealth, decideMonitoring, evolveMonitoring } from './task-monitoring.js';
import { changesJob, outdating, sameJobDefinition } from './abandoned-runs.js';
import type { ActiveTask, OpenRun, PreparedRun, Task, TaskCommand, TaskDefinition, TaskEvent, TaskRunStarted } from './task.js';

/** Unfinished runs older than this are dropped from the state (their render outcome never came back). */
export const STALE_OPEN_RUN_MS = 24 * 3_600_000;

const DEFINITION_FIELDS = ['name', 'api', 'query', 'frequency', 'crontab', 'timezone', 'monitor', 'keepSession'] as const;
const SCHEDULE_FIELDS: ReadonlySet<string> = new Set(['frequency', 'crontab', 'timezone']);

/** The same answer for a task that does not exist, was deleted or belongs to another account. */
export const taskNotFound = (taskId: number | string) => new AppError('task_not_found', `Task ${taskId} was not found.`);

export const initialState = (): Task => ({ status: 'Absent' });

const withoutRun = <R>(runs: Record<string, R>, runId: string): Record<string, R> => {
  const { [runId]: _removed, ...rest } = runs;
  return rest;
};

/** A prepared run's start: its job is out (published at its due instant, or rendered already). */
const preparedRunStarted = (state: ActiveTask, runId: string, prepared: PreparedRun, now: number): TaskRunStarted => {
  const { dueAt, jobId, fileName, reservationId } = prepared;
  return { type: 'TaskRunStarted', data: { taskId: state.taskId, runId, dueAt, startedAt: now, jobId, fileName, ...(reservationId ? { reservationId } : {}) } };
};

const withoutStaleRuns = (runs: Record<string, OpenRun>, now: number): Record<string, OpenRun> =>
  Object.fromEntries(Object.entries(runs).filter(([, r]) => now - r.startedAt < STALE_OPEN_RUN_MS));

export function evolve(state: Task, event: TaskEvent): Task {
  switch (event.type) {
    case 'TaskCreated': {
      const d = event.data;
      return {
        status: 'Active',
        taskId: d.taskId,
        accountId: d.accountId,
        definition: d.definition,
        enabled: d.enabled,
        createdAt: d.createdAt,
        ...(d.filesBaseUrl ? { filesBaseUrl: d.filesBaseUrl } : {}),
        scheduleSince: d.createdAt,
        lastDueAt: null,
        runs: 0,
        lastRunAt: null,
        openRuns: {},
        preparedRuns: {},
      };
    }
    case 'TaskUpdated': {
      if (state.status !== 'Active') return state;
      const { changes, updatedAt } = event.data;
      const scheduleChanged = Object.keys(changes).some((k) => SCHEDULE_FIELDS.has(k));
      return evolveMonitoring(
        {
          ...state,
          definition: { ...state.definition, ...changes },
          scheduleSince: scheduleChanged ? updatedAt : state.scheduleSince,
          // Jobs built from the definition before the change no longer stand.
          preparedRuns: changesJob(changes) ? outdating(state.preparedRuns ?? {}, () => true) : state.preparedRuns,
        },
        event,
      );
    }
    case 'TaskEnabled':
      return state.status === 'Active' ? { ...state, enabled: true, scheduleSince: event.data.enabledAt } : state;
    case 'TaskDisabled': {
      if (state.status !== 'Active') return state;
      // A run due after this instant was not to start (one due before it may have: its job went out).
      const { disabledAt } = event.data;
      return { ...state, enabled: false, preparedRuns: outdating(state.preparedRuns ?? {}, (run) => run.dueAt > disabledAt) };
    }
    case 'TaskDeleted':
      return state.status === 'Active'
        ? { status: 'Deleted', taskId: state.taskId, accountId: state.accountId, openRuns: state.openRuns }
        : state;
    case 'TaskRunPrepared': {
      if (state.status !== 'Active') return state;
      const { runId, dueAt, jobId, fileName, reservationId, preparedAt } = event.data;
      const prepared: PreparedRun = { dueAt, jobId, fileName, preparedAt, previousDueAt: state.lastDueAt, ...(reservationId ? { reservationId } : {}) };
      return { ...state, lastDueAt: dueAt, preparedRuns: { ...(state.preparedRuns ?? {}), [runId]: prepared } };
    }
    case 'TaskRunCancelled': {
      if (state.status !== 'Active') return state;
      // The occurrence is free again (a changed task runs it the usual way; a disabled one never does).
      return { ...state, lastDueAt: event.data.lastDueAt, preparedRuns: withoutRun(state.preparedRuns ?? {}, event.data.runId) };
    }
    case 'TaskRunStarted': {
      if (state.status !== 'Active') return state;
      const { runId, dueAt, startedAt, jobId, fileName, reservationId, trigger } = event.data;
      const open: OpenRun = jobId
        ? { dueAt, startedAt, jobId, dispatchedAt: startedAt, ...(fileName ? { fileName } : {}), ...(reservationId ? { reservationId } : {}) }
        : { dueAt, startedAt };
      return {
        ...state,
        // A run asked for outside the schedule claims no occurrence.
        lastDueAt: trigger === 'manual' ? state.lastDueAt : Math.max(dueAt, state.lastDueAt ?? dueAt),
        runs: state.runs + 1,
        lastRunAt: startedAt,
        openRuns: { ...withoutStaleRuns(state.openRuns, startedAt), [runId]: open },
        preparedRuns: withoutRun(state.preparedRuns ?? {}, runId),
      };
    }
    case 'TaskRunDispatched': {
      if (state.status === 'Absent') return state;
      const { runId, jobId, fileName, reservationId, dispatchedAt } = event.data;
      const run = state.openRuns[runId];
      if (!run) return state;
      const dispatched: OpenRun = { ...run, jobId, fileName, dispatchedAt, ...(reservationId ? { reservationId } : {}) };
      return { ...state, openRuns: { ...state.openRuns, [runId]: dispatched } };
    }
    case 'TaskRunFinished': {
      if (state.status === 'Absent') return state;
      const finished = { ...state, openRuns: withoutRun(state.openRuns, event.data.runId) };
      return finished.status === 'Active' ? evolveMonitoring(finished, event) : finished;
    }
    case 'TaskRunCompared':
    case 'TaskRunConfirming':
    case 'TaskFailing':
    case 'TaskRecovered':
      return state.status === 'Active' ? evolveMonitoring(state, event) : state;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** The task of `accountId`, or task_not_found (absent, deleted, or someone else's). */
function ownedBy(state: Task, accountId: string, taskId: number): ActiveTask {
  if (state.status !== 'Active' || state.accountId !== accountId) throw taskNotFound(taskId);
  return state;
}

function changedFields(current: TaskDefinition, next: TaskDefinition): Partial<TaskDefinition> {
  const changes: Partial<TaskDefinition> = {};
  for (const field of DEFINITION_FIELDS) {
    if (field === 'monitor') {
      if (!sameMonitor(current.monitor, next.monitor)) changes.monitor = next.monitor ?? null;
    } else if (field === 'keepSession') {
      // Turned off is recorded as false: an absent field would not undo it.
      if ((current.keepSession ?? false) !== (next.keepSession ?? false)) changes.keepSession = next.keepSession ?? false;
    } else if (current[field] !== next[field]) Object.assign(changes, { [field]: next[field] });
  }
  return changes;
}

/**
 * Decides what a command changes. Broken invariants throw (`task_not_found`); commands that are already
 * satisfied decide nothing, which makes run claims, dispatches and finishes idempotent.
 */
export function decide(command: TaskCommand, state: Task): TaskEvent[] {
  const { now } = command.metadata;
  switch (command.type) {
    case 'CreateTask': {
      if (state.status !== 'Absent') throw new AppError('conflict', `Task ${command.data.taskId} already exists.`);
      const { taskId, accountId, definition, enabled, filesBaseUrl } = command.data;
      return [
        { type: 'TaskCreated', data: { taskId, accountId, definition, enabled, createdAt: now, ...(filesBaseUrl ? { filesBaseUrl } : {}) } },
      ];
    }
    case 'UpdateTask': {
      const task = ownedBy(state, command.data.accountId, command.data.taskId);
      const events: TaskEvent[] = [];
      const { definition, enabled } = command.data;
      const changes = definition ? changedFields(task.definition, definition) : {};
      if (Object.keys(changes).length > 0) {
        events.push({ type: 'TaskUpdated', data: { taskId: task.taskId, changes, updatedAt: now } });
      }
      if (enabled === true && !task.enabled) events.push({ type: 'TaskEnabled', data: { taskId: task.taskId, enabledAt: now } });
      if (enabled === false && task.enabled) events.push({ type: 'TaskDisabled', data: { taskId: task.taskId, disabledAt: now } });
      return events;
    }
    case 'DeleteTask': {
      const task = ownedBy(state, command.data.accountId, command.data.taskId);
      return [{ type: 'TaskDeleted', data: { taskId: task.taskId, deletedAt: now } }];
    }
    case 'StartRun': {
      const { runId, dueAt } = command.data;
      // A disabled or deleted task never runs; an occurrence is claimed once, and never one older than the last.
      if (state.status !== 'Active' || !state.enabled) return [];
      if (dueAt <= state.scheduleSince || (state.lastDueAt !== null && dueAt <= state.lastDueAt)) return [];
      return [{ type: 'TaskRunStarted', data: { taskId: state.taskId, runId, dueAt, startedAt: now } }];
    }
    case 'RunNow': {
      // Enabled or not: the owner asks for this one run. Its id is new, so a repeated command decides nothing.
      const task = ownedBy(state, command.data.accountId, command.data.taskId);
      const { runId, jobId, fileName, reservationId } = command.data;
      if (task.openRuns[runId]) return [];
      return [
        {
          type: 'TaskRunStarted',
          data: { taskId: task.taskId, runId, dueAt: now, startedAt: now, jobId, fileName, ...(reservationId ? { reservationId } : {}), trigger: 'manual' },
        },
      ];
    }
    case 'PrepareRun': {
      const { runId, dueAt, jobId, fileName, reservationId, definition } = command.data;
      if (state.status !== 'Active' || !state.enabled) return [];
      if (dueAt <= state.scheduleSince || (state.lastDueAt !== null && dueAt <= state.lastDueAt)) return [];
      // Changed since its job was built: the job is not the task's (the due-time path starts the run).
      if (definition && !sameJobDefinition(definition, state.definition)) return [];
      return [
        {
          type: 'TaskRunPrepared',
          data: { taskId: state.taskId, runId, dueAt, jobId, fileName, ...(reservationId ? { reservationId } : {}), preparedAt: now },
        },
      ];
    }
    case 'StartPreparedRun': {
      // Its job is out already: the run started, even if the task was disabled a moment ago.
      if (state.status !== 'Active') return [];
      const { runId } = command.data;
      const prepared = state.preparedRuns?.[runId];
      if (!prepared) return [];
      return [preparedRunStarted(state, runId, prepared, now)];
    }
    case 'CancelPreparedRun': {
      if (state.status !== 'Active') return [];
      const { runId } = command.data;
      const prepared = state.preparedRuns?.[runId];
      if (!prepared) return [];
      const lastDueAt = state.lastDueAt === prepared.dueAt ? prepared.previousDueAt : state.lastDueAt;
      return [{ type: 'TaskRunCancelled', data: { taskId: state.taskId, runId, cancelledAt: now, lastDueAt } }];
    }
    case 'DispatchRun': {
      // Deleting a task stops it at once: a run not yet handed to the renderers never is.
      if (state.status !== 'Active') return [];
      const { runId, jobId, fileName, reservationId } = command.data;
      const run = state.openRuns[runId];
      if (!run || run.jobId) return [];
      return [
        {
          type: 'TaskRunDispatched',
          data: { taskId: state.taskId, runId, jobId, fileName, ...(reservationId ? { reservationId } : {}), dispatchedAt: now },
        },
      ];
    }
    case 'FinishRun': {
      if (state.status !== 'Active') return [];
      const { runId, outcome, file, error, announce, jobId } = command.data;
      if (!state.openRuns[runId]) {
        // A prepared run's job rendered, its start not recorded (its holder died between the two, or is
        // about to record it): it started, then finished, so every rendered run is recorded.
        const prepared = state.preparedRuns?.[runId];
        if (!prepared || jobId === undefined || prepared.jobId !== jobId) return [];
        const started = preparedRunStarted(state, runId, prepared, now);
        return [started, ...decide(command, evolve(state, started))];
      }
      return decideHealth(state, [
        {
          type: 'TaskRunFinished',
          data: {
            taskId: state.taskId,
            runId,
            outcome,
            finishedAt: now,
            ...(file !== undefined ? { file } : {}),
            ...(error !== undefined ? { error } : {}),
          },
        },
      ], now, announce);
    }
    case 'CompareRun':
      return decideHealth(state, decideMonitoring(command, state), now, command.data.announce);
    case 'ConfirmRun':
      return decideMonitoring(command, state);
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

