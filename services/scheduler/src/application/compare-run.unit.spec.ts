import { describe, expect, it } from 'vitest';
import { RenderFinished } from '@app/proto/render';
import { ComparisonFailed, type CompareJob } from '../comparison/compare-job.js';
import type { Monitor } from '../domain/monitor/monitor.js';
import type { TaskDefinition, TaskEvent } from '../domain/task/task.js';
import { controlledClock } from '../testing/controlled-clock.js';
import { memoryTaskStreams } from '../testing/memory-task-streams.js';
import { COMPARE_ATTEMPTS, compareRun } from './compare-run.js';
import type { Comparer, StoredResult } from './ports.js';

const T0 = Date.parse('2026-05-04T10:00:00Z');
const monitor: Monitor = { mode: 'text', threshold: 1, ignoreSelectors: [], ignoreText: [], confirm: false };
const definition: TaskDefinition = {
  name: 'Prices',
  api: 'scrape',
  query: 'url=https%3A%2F%2Fshop.example%2Fpricing&format=html',
  frequency: 'every_minute',
  crontab: '* * * * *',
  timezone: 'Etc/UTC',
  monitor,
};
const finishedRun = (n: number): TaskEvent[] => [
  { type: 'TaskRunStarted', data: { taskId: 3, runId: `r${n}`, dueAt: T0 + n * 60_000, startedAt: T0 + n * 60_000 } },
  { type: 'TaskRunDispatched', data: { taskId: 3, runId: `r${n}`, jobId: `job-${n}`, fileName: `file-${n}`, dispatchedAt: T0 + n * 60_000 } },
  { type: 'TaskRunFinished', data: { taskId: 3, runId: `r${n}`, outcome: 'succeeded', finishedAt: T0 + n * 60_000 + 5_000, file: `file-${n}` } },
];
const history: TaskEvent[] = [
  { type: 'TaskCreated', data: { taskId: 3, accountId: 'acc', definition, enabled: true, createdAt: T0 } },
  ...finishedRun(1),
  {
    type: 'TaskRunCompared',
    data: { taskId: 3, runId: 'r1', change: { status: 'baseline', score: 0, summary: '', after: 'compared-1', boxes: [] }, comparedAt: T0 + 66_000 },
  },
  ...finishedRun(2),
];
const finished = RenderFinished.fromPartial({
  job_id: 'job-2',
  account_id: 'acc',
  status: 'succeeded',
  origin: 'task',
  task_id: '3',
  run_id: 'r2',
  result: { object_name: 'file-2', content_type: 'text/html', extension: 'html', size: 10 },
});

/** A comparer whose every job fails as `failure` says. */
function setup(failure: ComparisonFailed | Error) {
  const streams = memoryTaskStreams({ 3: history });
  const files = new Map<string, StoredResult>([
    ['file-2', { body: new TextEncoder().encode('<p>new</p>'), extension: 'html', contentType: 'text/html' }],
    ['compared-1', { body: new TextEncoder().encode('old'), extension: 'txt', contentType: 'text/plain' }],
  ]);
  const jobs: CompareJob[] = [];
  const comparer: Comparer = {
    compare: async (job) => {
      jobs.push(job);
      throw failure;
    },
  };
  const compare = compareRun({
    streams: streams.port,
    results: { read: async (name) => files.get(name), write: async () => undefined },
    clock: controlledClock(T0 + 130_000),
    comparer,
    confirm: async () => false,
  });
  const compared = () => streams.events(3).filter((e) => e.type === 'TaskRunCompared').slice(1);
  return { compare, jobs, compared, streams };
}

describe('Comparing a monitoring run', () => {
  describe('When its comparison runs out of time on every delivery', () => {
    it(`should ask for the outcome again until delivery ${COMPARE_ATTEMPTS}, then record a failed comparison that keeps the baseline`, async () => {
      const { compare, jobs, compared, streams } = setup(new ComparisonFailed('deadline'));
      expect(await compare(finished, 1)).toBe('retry');
      expect(await compare(finished, 2)).toBe('retry');
      expect(compared()).toEqual([]);
      expect(await compare(finished, 3)).toBe('done');
      expect(jobs).toHaveLength(3);
      expect(jobs[0]).toMatchObject({ monitor, previous: new TextEncoder().encode('old'), labels: { before: 'r1', after: 'r2' } });
      expect(compared()).toEqual([
        {
          type: 'TaskRunCompared',
          data: {
            taskId: 3,
            runId: 'r2',
            change: {
              status: 'failed',
              score: 0,
              summary: 'The comparison ran out of time on 3 attempts: this run is not compared; the baseline stays.',
              before: 'compared-1',
              after: 'file-2',
              boxes: [],
            },
            comparedAt: T0 + 130_000,
          },
        },
      ]);
      const { state } = await streams.port.load(3);
      expect(state).toMatchObject({ baseline: { runId: 'r1', file: 'compared-1' }, uncompared: {} });
      // A redelivery after the record changes nothing.
      expect(await compare(finished, 4)).toBe('done');
      expect(compared()).toHaveLength(1);
    });
  });

  describe('When its outcome comes back after deliveries that never settled (the scheduler died while comparing)', () => {
    it('should record the failed comparison without trying again', async () => {
      const { compare, jobs, compared } = setup(new ComparisonFailed('crashed'));
      expect(await compare(finished, 6)).toBe('done');
      expect(jobs).toEqual([]);
      expect(compared()[0]?.data).toMatchObject({ change: { status: 'failed', summary: expect.stringMatching(/^The comparison did not finish in 5 tries/) } });
    });
  });

  describe('When the comparer fails with an error that is not a failed comparison', () => {
    it('should throw, leaving the outcome to the consumer\'s error policy, and record nothing', async () => {
      const { compare, compared } = setup(new Error('object store down'));
      await expect(compare(finished, 3)).rejects.toThrow('object store down');
      expect(compared()).toEqual([]);
    });
  });
});
