import { describe, expect, it } from 'vitest';
import type { Monitor, RunChange } from '../monitor/monitor.js';
import { decide, evolve, initialState } from './task.decider.js';
import type { ChangeAnnouncement, Task, TaskCommand, TaskDefinition, TaskEvent } from './task.js';

const monitor: Monitor = { mode: 'text', threshold: 1, ignoreSelectors: [], ignoreText: [], confirm: false, alertAfterFailures: 3 };
const definition: TaskDefinition = {
  name: 'Prices',
  api: 'scrape',
  query: 'url=https://shop.example/pricing',
  frequency: 'every_minute',
  crontab: '* * * * *',
  timezone: 'Etc/UTC',
  monitor,
};
const announce: ChangeAnnouncement = { accountId: 'acc', webhookUrl: 'https://hooks.example/x', webhookSigned: true, filesBaseUrl: 'https://api.example/v1/files/' };
const at = (n: number) => Date.parse('2026-05-04T10:00:00Z') + n * 60_000;

function play(commands: TaskCommand[], state: Task = initialState()): { state: Task; events: TaskEvent[] } {
  const events: TaskEvent[] = [];
  for (const c of commands) {
    const decided = decide(c, state);
    events.push(...decided);
    state = decided.reduce(evolve, state);
  }
  return { state, events };
}

const create = (m: Monitor = monitor): TaskCommand => ({
  type: 'CreateTask',
  data: { taskId: 9, accountId: 'acc', definition: { ...definition, monitor: m }, enabled: true },
  metadata: { now: at(0) },
});
const started = (n: number): TaskCommand[] => [
  { type: 'StartRun', data: { runId: `r${n}`, dueAt: at(n) }, metadata: { now: at(n) } },
  { type: 'DispatchRun', data: { runId: `r${n}`, jobId: `job-${n}`, fileName: `file-${n}` }, metadata: { now: at(n) } },
];
/** A run whose page answered an error status: its render failed. */
const errorPage = (n: number): TaskCommand[] => [
  ...started(n),
  {
    type: 'FinishRun',
    data: { runId: `r${n}`, outcome: 'failed', error: { code: 'host_returned_error', message: 'The page answered HTTP 503.' }, announce },
    metadata: { now: at(n) + 5_000 },
  },
];
const compared = (n: number, status: RunChange['status'], summary = ''): TaskCommand[] => [
  ...started(n),
  { type: 'FinishRun', data: { runId: `r${n}`, outcome: 'succeeded', file: `file-${n}` }, metadata: { now: at(n) + 5_000 } },
  { type: 'CompareRun', data: { runId: `r${n}`, change: { status, score: 0, summary, after: `c-${n}`, boxes: [] }, announce }, metadata: { now: at(n) + 6_000 } },
];
const episodes = (events: TaskEvent[]) => events.filter((e) => e.type === 'TaskFailing' || e.type === 'TaskRecovered');

describe('a monitoring task failing runs in a row', () => {
  it('should announce task.failing once, on the third failure, named by that run, with its reason', () => {
    // Given a baseline, then an error page, an empty page and two more error pages
    const { events, state } = play([create(), ...compared(1, 'baseline'), ...errorPage(2), ...compared(3, 'failed', 'The page showed nothing (an empty page)'), ...errorPage(4), ...errorPage(5)]);
    // Then one failing episode started, at run 4 (the third failure in a row)
    expect(episodes(events)).toEqual([
      {
        type: 'TaskFailing',
        data: { taskId: 9, runId: 'r4', episodeId: 'r4', failures: 3, reason: 'host_returned_error: The page answered HTTP 503.', failingAt: at(4) + 5_000, announce },
      },
    ]);
    expect(state).toMatchObject({ failures: 4, failing: { episodeId: 'r4' } });
  });

  it('should announce task.recovered once, on the next run that works, and start a new episode later', () => {
    const { events } = play([
      create(),
      ...errorPage(1),
      ...errorPage(2),
      ...errorPage(3),
      ...compared(4, 'baseline'),
      ...compared(5, 'unchanged'),
      ...errorPage(6),
      ...errorPage(7),
      ...errorPage(8),
    ]);
    expect(episodes(events).map((e) => [e.type, e.data.runId, e.data.episodeId])).toEqual([
      ['TaskFailing', 'r3', 'r3'],
      ['TaskRecovered', 'r4', 'r3'],
      ['TaskFailing', 'r8', 'r8'],
    ]);
  });

  it('should never announce with alert_after_failures 0, and not before its count', () => {
    expect(episodes(play([create({ ...monitor, alertAfterFailures: 0 }), ...[1, 2, 3, 4, 5].flatMap(errorPage)]).events)).toEqual([]);
    expect(episodes(play([create(), ...errorPage(1), ...errorPage(2), ...compared(3, 'baseline'), ...errorPage(4), ...errorPage(5)]).events)).toEqual([]);
  });

  it('should count three by default, for a monitor recorded before the setting existed', () => {
    const { alertAfterFailures: _none, ...old } = monitor;
    expect(episodes(play([create(old), ...errorPage(1), ...errorPage(2), ...errorPage(3)]).events).map((e) => e.type)).toEqual(['TaskFailing']);
  });
});
