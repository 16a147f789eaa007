import { describe, expect, it } from 'vitest';
import type { Monitor, RunChange } from '../monitor/monitor.js';
import { decide, evolve, initialState } from './task.decider.js';
import type { Task, TaskCommand, TaskDefinition, TaskEvent } from './task.js';

const monitor: Monitor = { mode: 'text', threshold: 1, ignoreSelectors: [], ignoreText: [], confirm: true };
const definition: TaskDefinition = {
  name: 'Prices',
  api: 'scrape',
  query: 'url=https://shop.example/pricing',
  frequency: 'every_minute',
  crontab: '* * * * *',
  timezone: 'Etc/UTC',
  monitor,
};
const at = (n: number) => Date.parse('2026-05-04T10:00:00Z') + n * 60_000;

/** Decides each command on the state so far and applies its events. */
function play(commands: TaskCommand[], state: Task = initialState()): { state: Task; events: TaskEvent[] } {
  const events: TaskEvent[] = [];
  for (const c of commands) {
    const decided = decide(c, state);
    events.push(...decided);
    state = decided.reduce(evolve, state);
  }
  return { state, events };
}

const create: TaskCommand = { type: 'CreateTask', data: { taskId: 9, accountId: 'acc', definition, enabled: true }, metadata: { now: at(0) } };
const ran = (n: number, file = `file-${n}`): TaskCommand[] => [
  { type: 'StartRun', data: { runId: `r${n}`, dueAt: at(n) }, metadata: { now: at(n) } },
  { type: 'DispatchRun', data: { runId: `r${n}`, jobId: `job-${n}`, fileName: file }, metadata: { now: at(n) } },
  { type: 'FinishRun', data: { runId: `r${n}`, outcome: 'succeeded', file }, metadata: { now: at(n) + 5_000 } },
];
const change = (n: number, status: RunChange['status']): RunChange => ({ status, score: 0, summary: '', after: `file-${n}-compared.txt`, boxes: [] });
const compare = (n: number, status: RunChange['status']): TaskCommand => ({
  type: 'CompareRun',
  data: { runId: `r${n}`, change: change(n, status) },
  metadata: { now: at(n) + 6_000 },
});

describe('Monitoring in the task aggregate', () => {
  it('should await the comparison of a finished run, and record it once', () => {
    const { state, events } = play([create, ...ran(1), compare(1, 'baseline'), compare(1, 'baseline')]);
    expect(events.filter((e) => e.type === 'TaskRunCompared')).toHaveLength(1);
    expect(state).toMatchObject({ baseline: { runId: 'r1', file: 'file-1-compared.txt' }, uncompared: {} });
  });

  it('should close a run whose comparison failed and keep the baseline for the next run', () => {
    const { state, events } = play([create, ...ran(1), compare(1, 'baseline'), ...ran(2), compare(2, 'failed'), compare(2, 'failed')]);
    expect(events.filter((e) => e.type === 'TaskRunCompared')).toHaveLength(2);
    expect(state).toMatchObject({ baseline: { runId: 'r1', file: 'file-1-compared.txt' }, uncompared: {} });
  });

  it('should not await a comparison for a task without a monitor', () => {
    const plain: TaskCommand = { ...create, data: { ...create.data, definition: { ...definition, monitor: null } } } as TaskCommand;
    const { events } = play([plain, ...ran(1), compare(1, 'baseline')]);
    expect(events.some((e) => e.type === 'TaskRunCompared')).toBe(false);
  });

  it('should confirm a run once, and let the comparison of its confirming render close it', () => {
    const confirm: TaskCommand = { type: 'ConfirmRun', data: { runId: 'r2', jobId: 'confirm-2', fileName: 'c-2', score: 5 }, metadata: { now: at(2) + 6_000 } };
    const { state, events } = play([create, ...ran(1), compare(1, 'baseline'), ...ran(2), confirm, confirm]);
    expect(events.filter((e) => e.type === 'TaskRunConfirming')).toHaveLength(1);
    expect(state).toMatchObject({ confirming: { 'confirm-2': { runId: 'r2' } } });
    const after = play([compare(2, 'unchanged')], state).state;
    expect(after).toMatchObject({ confirming: {}, uncompared: {}, baseline: { runId: 'r2' } });
  });

  it('should start a new baseline when the monitor or the query changes, and not when the name does', () => {
    const base = play([create, ...ran(1), compare(1, 'baseline')]).state;
    const rename = (data: Partial<TaskDefinition>): TaskCommand => ({
      type: 'UpdateTask',
      data: { taskId: 9, accountId: 'acc', definition: { ...definition, ...data } },
      metadata: { now: at(1) + 10_000 },
    });
    expect(play([rename({ name: 'Other' })], base).state).toMatchObject({ baseline: { runId: 'r1' } });
    expect(play([rename({ monitor: { ...monitor } })], base).events).toEqual([]);
    expect(play([rename({ monitor: { ...monitor, threshold: 5 } })], base).state).toMatchObject({ baseline: null });
    expect(play([rename({ query: 'url=https://shop.example/other' })], base).state).toMatchObject({ baseline: null });
    const stopped = play([rename({ monitor: null })], base);
    expect(stopped.events).toMatchObject([{ type: 'TaskUpdated', data: { changes: { monitor: null } } }]);
  });
});
