import { describe, expect, it } from 'vitest';
import { isAppError } from '@app/errors';
import { decide, evolve, initialState, STALE_OPEN_RUN_MS } from './task.decider.js';
import type { TaskCommand, TaskDefinition, TaskEvent } from './task.js';
import { EVERY_MINUTE_TASK } from '../../testing/task-definitions.js';

const T0 = Date.parse('2026-05-01T10:00:30Z');
const MINUTE = 60_000;
const definition: TaskDefinition = EVERY_MINUTE_TASK;
const created: TaskEvent = { type: 'TaskCreated', data: { taskId: 7, accountId: 'acc_a', definition, enabled: true, createdAt: T0 } };
const started = (dueAt: number, runId = `7-${dueAt / 1000}`): TaskEvent => ({
  type: 'TaskRunStarted',
  data: { taskId: 7, runId, dueAt, startedAt: dueAt + 120 },
});
const dueAt = Date.parse('2026-05-01T10:01:00Z');

/** Decider specification: given past events, when a command, then the new events (or the error). */
const given = (events: TaskEvent[]) => ({
  when: (command: TaskCommand) => {
    const run = () => decide(command, events.reduce(evolve, initialState()));
    return {
      then: (expected: TaskEvent[]) => expect(run()).toEqual(expected),
      thenThrows: (code: string) => {
        let error: unknown;
        try {
          run();
        } catch (err) {
          error = err;
        }
        expect(isAppError(error) && error.code).toBe(code);
      },
    };
  },
});

const startRun = (due: number, now = due + 120): TaskCommand => ({ type: 'StartRun', data: { runId: `7-${due / 1000}`, dueAt: due }, metadata: { now } });

describe('Task', () => {
  describe('When it is created', () => {
    it('should record the definition, the account and the creation time', () => {
      given([])
        .when({ type: 'CreateTask', data: { taskId: 7, accountId: 'acc_a', definition, enabled: true }, metadata: { now: T0 } })
        .then([created]);
    });

    it('should refuse a second creation of the same id', () => {
      given([created])
        .when({ type: 'CreateTask', data: { taskId: 7, accountId: 'acc_b', definition, enabled: true }, metadata: { now: T0 } })
        .thenThrows('conflict');
    });
  });

  describe('When an occurrence is due', () => {
    it('should start a run for it', () => {
      given([created]).when(startRun(dueAt)).then([started(dueAt)]);
    });

    it('should not start it twice (a second replica, or a repeated tick)', () => {
      given([created, started(dueAt)]).when(startRun(dueAt)).then([]);
    });

    it('should not start an occurrence older than the last one started', () => {
      given([created, started(dueAt + MINUTE)]).when(startRun(dueAt)).then([]);
    });

    it('should not start an occurrence at or before the creation', () => {
      given([created]).when(startRun(Date.parse('2026-05-01T10:00:00Z'))).then([]);
    });
  });

  describe('When the task is disabled', () => {
    const disabled: TaskEvent = { type: 'TaskDisabled', data: { taskId: 7, disabledAt: T0 + 5_000 } };

    it('should not start a run', () => {
      given([created, disabled]).when(startRun(dueAt)).then([]);
    });

    it('should start again only for occurrences after it is enabled', () => {
      const enabledAt = dueAt + 10_000;
      const enabled: TaskEvent = { type: 'TaskEnabled', data: { taskId: 7, enabledAt } };
      given([created, disabled, enabled]).when(startRun(dueAt)).then([]);
      given([created, disabled, enabled]).when(startRun(dueAt + MINUTE)).then([started(dueAt + MINUTE)]);
    });
  });

  describe('When the task is deleted', () => {
    const deleted: TaskEvent = { type: 'TaskDeleted', data: { taskId: 7, deletedAt: T0 + 1_000 } };

    it('should never start a run again', () => {
      given([created, deleted]).when(startRun(dueAt)).then([]);
    });

    it('should not hand a run started before the deletion to the renderers', () => {
      given([created, started(dueAt), deleted])
        .when({ type: 'DispatchRun', data: { runId: `7-${dueAt / 1000}`, jobId: 'job-1', fileName: 'file-1', reservationId: 'r1' }, metadata: { now: dueAt + 500 } })
        .then([]);
    });

    it('should answer task_not_found to a second deletion and to an update', () => {
      given([created, deleted]).when({ type: 'DeleteTask', data: { taskId: 7, accountId: 'acc_a' }, metadata: { now: T0 } }).thenThrows('task_not_found');
      given([created, deleted])
        .when({ type: 'UpdateTask', data: { taskId: 7, accountId: 'acc_a', enabled: false }, metadata: { now: T0 } })
        .thenThrows('task_not_found');
    });
  });

  describe('When another account acts on it', () => {
    it('should answer task_not_found, as for a task that does not exist', () => {
      given([created]).when({ type: 'DeleteTask', data: { taskId: 7, accountId: 'acc_b' }, metadata: { now: T0 } }).thenThrows('task_not_found');
      given([]).when({ type: 'DeleteTask', data: { taskId: 7, accountId: 'acc_b' }, metadata: { now: T0 } }).thenThrows('task_not_found');
    });
  });

  describe('When it is updated', () => {
    it('should record only the fields that changed, then the switch of enabled', () => {
      given([created])
        .when({
          type: 'UpdateTask',
          data: { taskId: 7, accountId: 'acc_a', definition: { ...definition, name: 'Renamed', crontab: '*/5 * * * *', frequency: 'custom' }, enabled: false },
          metadata: { now: T0 + 1 },
        })
        .then([
          { type: 'TaskUpdated', data: { taskId: 7, changes: { name: 'Renamed', frequency: 'custom', crontab: '*/5 * * * *' }, updatedAt: T0 + 1 } },
          { type: 'TaskDisabled', data: { taskId: 7, disabledAt: T0 + 1 } },
        ]);
    });

    it('should decide nothing when nothing changes', () => {
      given([created]).when({ type: 'UpdateTask', data: { taskId: 7, accountId: 'acc_a', definition, enabled: true }, metadata: { now: T0 } }).then([]);
    });

    it('should start the new schedule after the change, not before', () => {
      const changedAt = dueAt + 30_000;
      const updated: TaskEvent = { type: 'TaskUpdated', data: { taskId: 7, changes: { timezone: 'Europe/Berlin' }, updatedAt: changedAt } };
      given([created, updated]).when(startRun(dueAt)).then([]);
      given([created, updated]).when(startRun(dueAt + MINUTE)).then([started(dueAt + MINUTE)]);
    });
  });

  describe('When a started run is dispatched and finishes', () => {
    const runId = `7-${dueAt / 1000}`;
    const dispatched: TaskEvent = {
      type: 'TaskRunDispatched',
      data: { taskId: 7, runId, jobId: 'job-1', fileName: 'file-1', reservationId: 'r1', dispatchedAt: dueAt + 300 },
    };

    it('should record the dispatch once', () => {
      given([created, started(dueAt)])
        .when({ type: 'DispatchRun', data: { runId, jobId: 'job-1', fileName: 'file-1', reservationId: 'r1' }, metadata: { now: dueAt + 300 } })
        .then([dispatched]);
      given([created, started(dueAt), dispatched])
        .when({ type: 'DispatchRun', data: { runId, jobId: 'job-2', fileName: 'file-2', reservationId: 'r2' }, metadata: { now: dueAt + 400 } })
        .then([]);
    });

    it('should record the outcome once, with the result file', () => {
      const finish: TaskCommand = { type: 'FinishRun', data: { runId, outcome: 'succeeded', file: 'file-1' }, metadata: { now: dueAt + 2_000 } };
      const finished: TaskEvent = { type: 'TaskRunFinished', data: { taskId: 7, runId, outcome: 'succeeded', finishedAt: dueAt + 2_000, file: 'file-1' } };
      given([created, started(dueAt), dispatched]).when(finish).then([finished]);
      given([created, started(dueAt), dispatched, finished]).when(finish).then([]);
    });

    it('should count the run and remember its start', () => {
      const state = [created, started(dueAt), dispatched].reduce(evolve, initialState());
      expect(state).toMatchObject({ status: 'Active', runs: 1, lastRunAt: dueAt + 120, lastDueAt: dueAt });
      expect(state.status === 'Active' && state.openRuns[runId]).toEqual({ dueAt, startedAt: dueAt + 120, jobId: 'job-1', fileName: 'file-1', reservationId: 'r1', dispatchedAt: dueAt + 300 });
    });
  });

  describe('When a run never got an outcome', () => {
    it('should forget it a day later, so the state stays small', () => {
      const later = dueAt + STALE_OPEN_RUN_MS;
      const state = [created, started(dueAt), started(later)].reduce(evolve, initialState());
      expect(state.status === 'Active' && Object.keys(state.openRuns)).toEqual([`7-${later / 1000}`]);
    });
  });

  describe('When a run is prepared ahead of its due instant', () => {
    const runId = `7-${dueAt / 1000}`;
    const prepareRun = (due = dueAt, now = due - 15_000): TaskCommand => ({
      type: 'PrepareRun',
      data: { runId: `7-${due / 1000}`, dueAt: due, jobId: 'job-1', fileName: 'f'.repeat(43), reservationId: 'res-1' },
      metadata: { now },
    });
    const prepared: TaskEvent = {
      type: 'TaskRunPrepared',
      data: { taskId: 7, runId, dueAt, jobId: 'job-1', fileName: 'f'.repeat(43), reservationId: 'res-1', preparedAt: dueAt - 15_000 },
    };

    it('should claim its occurrence, so the due-time path never starts it again', () => {
      given([created]).when(prepareRun()).then([prepared]);
      given([created, prepared]).when(startRun(dueAt)).then([]);
      given([created, prepared]).when(prepareRun()).then([]);
    });

    it('should not prepare a run of a disabled task', () => {
      given([created, { type: 'TaskDisabled', data: { taskId: 7, disabledAt: T0 + 1 } }]).when(prepareRun()).then([]);
    });

    it('should start it with its job, counted as a run that is already dispatched', () => {
      given([created, prepared])
        .when({ type: 'StartPreparedRun', data: { runId }, metadata: { now: dueAt + 40 } })
        .then([
          {
            type: 'TaskRunStarted',
            data: { taskId: 7, runId, dueAt, startedAt: dueAt + 40, jobId: 'job-1', fileName: 'f'.repeat(43), reservationId: 'res-1' },
          },
        ]);
      const state = [created, prepared].reduce(evolve, initialState());
      const after = decide({ type: 'StartPreparedRun', data: { runId }, metadata: { now: dueAt + 40 } }, state).reduce(evolve, state);
      expect(after).toMatchObject({ runs: 1, lastRunAt: dueAt + 40, openRuns: { [runId]: { jobId: 'job-1', reservationId: 'res-1' } }, preparedRuns: {} });
    });

    it('should cancel it and free its occurrence for the due-time path', () => {
      const cancelled: TaskEvent = { type: 'TaskRunCancelled', data: { taskId: 7, runId, cancelledAt: dueAt - 5_000, lastDueAt: null } };
      given([created, prepared]).when({ type: 'CancelPreparedRun', data: { runId }, metadata: { now: dueAt - 5_000 } }).then([cancelled]);
      given([created, prepared, cancelled]).when(startRun(dueAt)).then([started(dueAt)]);
      given([created, prepared, cancelled]).when({ type: 'StartPreparedRun', data: { runId }, metadata: { now: dueAt } }).then([]);
    });
  });
});
