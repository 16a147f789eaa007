import { describe, expect, it } from 'vitest';
import type { TaskDefinition, TaskEvent } from '../../domain/task/task.js';
import { evolveRunHistory, evolveTaskView, type RunView, type TaskView, type VersionedTaskEvent } from './task-views.projection.js';

const T0 = Date.parse('2026-05-01T10:00:30Z');
const due = (n: number) => Date.parse('2026-05-01T10:01:00Z') + n * 60_000;
const definition: TaskDefinition = {
  name: 'Home',
  api: 'pdf',
  query: 'url=https://example.com',
  frequency: 'every_minute',
  crontab: '* * * * *',
  timezone: 'Europe/Berlin',
};

const history: TaskEvent[] = [
  { type: 'TaskCreated', data: { taskId: 4, accountId: 'acc', definition, enabled: true, createdAt: T0 } },
  { type: 'TaskRunStarted', data: { taskId: 4, runId: 'r1', dueAt: due(0), startedAt: due(0) + 100 } },
  { type: 'TaskRunDispatched', data: { taskId: 4, runId: 'r1', jobId: 'job-1', fileName: 'file-1', dispatchedAt: due(0) + 300 } },
  { type: 'TaskRunStarted', data: { taskId: 4, runId: 'r2', dueAt: due(1), startedAt: due(1) + 90 } },
  { type: 'TaskRunFinished', data: { taskId: 4, runId: 'r1', outcome: 'succeeded', finishedAt: due(1) + 500, file: 'file-1' } },
  { type: 'TaskRunFinished', data: { taskId: 4, runId: 'r2', outcome: 'failed', finishedAt: due(1) + 900, error: { code: 'quota_exceeded', message: 'used up' } } },
  { type: 'TaskUpdated', data: { taskId: 4, changes: { name: 'Renamed' }, updatedAt: due(2) } },
  { type: 'TaskDisabled', data: { taskId: 4, disabledAt: due(2) + 1 } },
];
const versioned = (events: TaskEvent[]): VersionedTaskEvent[] => events.map((e, i) => ({ ...e, version: i + 1 }) as VersionedTaskEvent);

const project = (events: TaskEvent[], limit = 100) => {
  let view: TaskView | null = null;
  let runs: RunView[] = [];
  for (const e of versioned(events)) {
    view = evolveTaskView(view, e);
    runs = evolveRunHistory(runs, e, limit);
  }
  return { view, runs };
};

describe('Task views projection', () => {
  describe('When a task was created, ran twice and was renamed and disabled', () => {
    it('should give every field of the spec, with runs counted at their start', () => {
      expect(project(history).view).toEqual({
        id: 4,
        accountId: 'acc',
        ...definition,
        name: 'Renamed',
        enabled: false,
        created: T0,
        lastRun: due(1) + 90,
        runs: 2,
        scheduleSince: T0,
        lastDueAt: due(1),
        version: 8,
      });
    });

    it('should give the run history with outcome and result file', () => {
      expect(project(history).runs).toEqual([
        { runId: 'r1', taskId: 4, trigger: 'schedule', dueAt: due(0), startedAt: due(0) + 100, finishedAt: due(1) + 500, status: 'succeeded', file: 'file-1', error: null, change: null },
        {
          runId: 'r2',
          taskId: 4,
          trigger: 'schedule',
          dueAt: due(1),
          startedAt: due(1) + 90,
          finishedAt: due(1) + 900,
          status: 'failed',
          file: null,
          error: { code: 'quota_exceeded', message: 'used up' },
          change: null,
        },
      ]);
    });
  });

  describe('When the owner asks for a run outside the schedule', () => {
    it('should list it as manual, count it, and leave the schedule where it was', () => {
      const manual = { type: 'TaskRunStarted', data: { taskId: 4, runId: '4-now-1', dueAt: due(5), startedAt: due(5), jobId: 'j', fileName: 'f', trigger: 'manual' } } as TaskEvent;
      const { view, runs } = project([...history, manual]);
      expect(view).toMatchObject({ runs: 3, lastRun: due(5), lastDueAt: due(1) });
      expect(runs.at(-1)).toMatchObject({ runId: '4-now-1', trigger: 'manual', status: 'running' });
    });
  });

  describe('When a monitoring task run is compared', () => {
    it('should show the change on that run only', () => {
      const change = { status: 'changed' as const, score: 3, summary: '1 line added', after: 'file-1-compared.txt', before: 'b.txt', diff: 'file-1-diff.diff', boxes: [] };
      const compared = [...history, { type: 'TaskRunCompared', data: { taskId: 4, runId: 'r1', change, comparedAt: due(2) } } as TaskEvent];
      const { runs } = project(compared);
      expect(runs.map((r) => r.change)).toEqual([{ ...change, comparedAt: due(2) }, null]);
    });
  });

  describe('When a run has started but not finished', () => {
    it('should show it as running', () => {
      expect(project(history.slice(0, 4)).runs.map((r) => r.status)).toEqual(['running', 'running']);
    });
  });

  describe('When the history is longer than the limit', () => {
    it('should keep the latest runs only', () => {
      expect(project(history, 1).runs.map((r) => r.runId)).toEqual(['r2']);
    });
  });

  describe('When the task is deleted', () => {
    it('should remove it and its runs', () => {
      const deleted = project([...history, { type: 'TaskDeleted', data: { taskId: 4, deletedAt: due(3) } }]);
      expect(deleted).toEqual({ view: null, runs: [] });
    });
  });
});
