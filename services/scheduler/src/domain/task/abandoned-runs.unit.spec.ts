import { describe, expect, it } from 'vitest';
import { abandonedRuns } from './abandoned-runs.js';
import { decide, evolve, initialState } from './task.decider.js';
import type { TaskCommand, TaskDefinition, TaskEvent } from './task.js';
import { EVERY_MINUTE_TASK } from '../../testing/task-definitions.js';

// A run prepared ahead whose holder died (SIGKILL before its due instant, or between publishing its job and
// recording its start): its due instant passed by the grace period and it is still only prepared.

const dueAt = Date.parse('2026-05-01T10:01:00Z');
const runId = `7-${dueAt / 1000}`;
const policy = { graceMs: 15_000, republishWindowMs: 60_000 };
const definition: TaskDefinition = EVERY_MINUTE_TASK;
const created: TaskEvent = { type: 'TaskCreated', data: { taskId: 7, accountId: 'acc_a', definition, enabled: true, createdAt: dueAt - 120_000 } };
const earlier: TaskEvent = { type: 'TaskRunStarted', data: { taskId: 7, runId: `7-${(dueAt - 60_000) / 1000}`, dueAt: dueAt - 60_000, startedAt: dueAt - 60_000 } };
const prepared: TaskEvent = {
  type: 'TaskRunPrepared',
  data: { taskId: 7, runId, dueAt, jobId: 'job-1', fileName: 'file-1', reservationId: 'res-1', preparedAt: dueAt - 40_000 },
};
const stateOf = (events: TaskEvent[]) => events.reduce(evolve, initialState());
const recoveriesAt = (events: TaskEvent[], now: number) => abandonedRuns(stateOf(events), now, policy).map((r) => [r.runId, r.action]);

describe('Abandoned prepared runs', () => {
  describe('Given a run prepared ahead', () => {
    it('should leave it to its holder until the grace period after its due instant is over', () => {
      expect(recoveriesAt([created, earlier, prepared], dueAt)).toEqual([]);
      expect(recoveriesAt([created, earlier, prepared], dueAt + 14_999)).toEqual([]);
    });

    it('should start it (its job published again as prepared) when still only prepared after the grace period', () => {
      expect(recoveriesAt([created, earlier, prepared], dueAt + 15_000)).toEqual([[runId, 'start']]);
    });

    it('should leave it when it started, or was cancelled', () => {
      const start: TaskCommand = { type: 'StartPreparedRun', data: { runId }, metadata: { now: dueAt + 5 } };
      const startedEvents = decide(start, stateOf([created, earlier, prepared]));
      expect(recoveriesAt([created, earlier, prepared, ...startedEvents], dueAt + 20_000)).toEqual([]);
      const cancel: TaskCommand = { type: 'CancelPreparedRun', data: { runId }, metadata: { now: dueAt - 5 } };
      const cancelled = decide(cancel, stateOf([created, earlier, prepared]));
      expect(recoveriesAt([created, earlier, prepared, ...cancelled], dueAt + 20_000)).toEqual([]);
    });

    it('should cancel it when its job may have gone out longer ago than the queue deduplicates a job id', () => {
      expect(recoveriesAt([created, earlier, prepared], dueAt + 60_001)).toEqual([[runId, 'cancel']]);
    });
  });

  describe('When its task changed a field its job is built from, at any time', () => {
    it('should cancel it: its job cannot be rebuilt as it was checked and admitted', () => {
      const query: TaskEvent = { type: 'TaskUpdated', data: { taskId: 7, changes: { query: 'url=https://example.org' }, updatedAt: dueAt + 2_000 } };
      expect(recoveriesAt([created, earlier, prepared, query], dueAt + 15_000)).toEqual([[runId, 'cancel']]);
    });

    it('should still start it after a change of its name only', () => {
      const name: TaskEvent = { type: 'TaskUpdated', data: { taskId: 7, changes: { name: 'Renamed' }, updatedAt: dueAt - 2_000 } };
      expect(recoveriesAt([created, earlier, prepared, name], dueAt + 15_000)).toEqual([[runId, 'start']]);
    });
  });

  describe('When its task was disabled', () => {
    const disabledAt = (at: number): TaskEvent => ({ type: 'TaskDisabled', data: { taskId: 7, disabledAt: at } });

    it('should cancel it when that came before its due instant (it was not to start)', () => {
      expect(recoveriesAt([created, earlier, prepared, disabledAt(dueAt - 1_000)], dueAt + 15_000)).toEqual([[runId, 'cancel']]);
    });

    it('should start it when that came after its due instant (its job may have gone out)', () => {
      expect(recoveriesAt([created, earlier, prepared, disabledAt(dueAt + 1_000)], dueAt + 15_000)).toEqual([[runId, 'start']]);
    });
  });

  describe('When an abandoned run is cancelled', () => {
    it('should free its occurrence for the due-time path: it runs late rather than never', () => {
      const state = stateOf([created, earlier, prepared]);
      const cancelled = decide({ type: 'CancelPreparedRun', data: { runId }, metadata: { now: dueAt + 15_000 } }, state);
      const after = cancelled.reduce(evolve, state);
      expect(decide({ type: 'StartRun', data: { runId, dueAt }, metadata: { now: dueAt + 15_000 } }, after)).toEqual([
        { type: 'TaskRunStarted', data: { taskId: 7, runId, dueAt, startedAt: dueAt + 15_000 } },
      ]);
    });
  });

  describe("When the render of a prepared run's job finished though its start was never recorded", () => {
    it('should record the run started, then finished', () => {
      const finish: TaskCommand = { type: 'FinishRun', data: { runId, jobId: 'job-1', outcome: 'succeeded', file: 'file-1' }, metadata: { now: dueAt + 9_000 } };
      expect(decide(finish, stateOf([created, earlier, prepared]))).toEqual([
        { type: 'TaskRunStarted', data: { taskId: 7, runId, dueAt, startedAt: dueAt + 9_000, jobId: 'job-1', fileName: 'file-1', reservationId: 'res-1' } },
        { type: 'TaskRunFinished', data: { taskId: 7, runId, outcome: 'succeeded', finishedAt: dueAt + 9_000, file: 'file-1' } },
      ]);
    });

    it("should record nothing for another job's outcome", () => {
      const finish: TaskCommand = { type: 'FinishRun', data: { runId, jobId: 'job-other', outcome: 'succeeded', file: 'x' }, metadata: { now: dueAt + 9_000 } };
      expect(decide(finish, stateOf([created, earlier, prepared]))).toEqual([]);
    });
  });

  describe('When its task changed between building its job and claiming its occurrence', () => {
    it('should not prepare it from the job built before the change', () => {
      const changed: TaskEvent = { type: 'TaskUpdated', data: { taskId: 7, changes: { query: 'url=https://example.org' }, updatedAt: dueAt - 41_000 } };
      const prepare: TaskCommand = {
        type: 'PrepareRun',
        data: { runId, dueAt, jobId: 'job-1', fileName: 'file-1', reservationId: 'res-1', definition },
        metadata: { now: dueAt - 40_000 },
      };
      expect(decide(prepare, stateOf([created, earlier, changed]))).toEqual([]);
      expect(decide(prepare, stateOf([created, earlier]))).toEqual([prepared]);
    });
  });
});
