import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAppError } from '@app/errors';
import { SCHEDULER_RUN_COMPARISONS_CONSUMER, SCHEDULER_TASK_RUNS_CONSUMER, jetstreamManager } from '@app/messaging';
import type { RenderJob } from '@app/proto/render';
import type { Task, TaskRun } from '@app/proto/scheduler';
import { until } from '@app/testkit';
import { controlledClock } from './testing/controlled-clock.js';
import { fakeRenders, type FakeRenders } from './testing/fake-renders.js';
import { recordingAuthQuota } from './testing/recording-auth-quota.js';
import { startSchedulerHarness, type Replica, type SchedulerHarness } from './testing/scheduler-harness.js';

// One account's monitor must not stop the scheduler for the others (issue 46): saving hostile ignore_text
// patterns, filtering a page with patterns that backtrack quadratically, and diffing a page whose every
// line changed all happen while another account lists its tasks through the scheduler's gRPC service,
// and every one of those calls is answered within a second. The scheduler runs in this process, so a
// blocked thread delays the calls: each one's wait is counted from when it was meant to be sent.

const MINUTE = 60_000;
const T0 = Date.parse('2026-05-04T10:00:20Z');
const HTML = { extension: 'html', contentType: 'text/html; charset=utf-8' };
const OTHER = 'acc_other';
/** What "answered" means for the other account (the figure). */
const ANSWERED_WITHIN_MS = 1_000;

interface Scheduler {
  harness: SchedulerHarness;
  r: Replica;
  renders: FakeRenders;
  clock: ReturnType<typeof controlledClock>;
  minute: number;
}

async function startScheduler(env: NodeJS.ProcessEnv = {}): Promise<Scheduler> {
  const harness = await startSchedulerHarness(env);
  const clock = controlledClock(T0);
  const r = await harness.replica({ clock, authQuota: recordingAuthQuota().port });
  const renders = await fakeRenders(harness.nats.nc, () => clock.ms());
  await r.create({ account_id: OTHER, name: 'Other account', api: 'screenshot', query: 'url=http://127.0.0.1:9/', frequency: 'every_day' });
  return { harness, r, renders, clock, minute: 0 };
}

/** Calls of the other account, at least (the probe goes on after a quick `work`). */
const MIN_CALLS = 5;

/**
 * Runs `work` while another account lists its tasks every 100 ms; each call's wait runs from the moment it
 * was due to be sent (as a client in another process would see it) to its answer.
 */
async function whileOthersList<T>(s: Scheduler, work: () => Promise<T>): Promise<{ result: T; waits: number[]; failures: unknown[] }> {
  let done = false;
  const waits: number[] = [];
  const failures: unknown[] = [];
  const probe = (async () => {
    let due = performance.now();
    while (!done || waits.length < MIN_CALLS) {
      const delay = due - performance.now();
      if (delay > 0) await sleep(delay);
      try {
        const tasks = await s.r.list(OTHER);
        if (tasks.length !== 1) failures.push(new Error(`listed ${tasks.length} tasks`));
      } catch (err) {
        failures.push(err);
      }
      waits.push(performance.now() - due);
      if (process.env.PRINT_WAITS) console.log(Math.round(waits.at(-1)!));
      due += 100;
    }
  })();
  try {
    return { result: await work(), waits, failures };
  } finally {
    done = true;
    await probe;
  }
}

function expectServedThroughout(probe: { waits: number[]; failures: unknown[] }) {
  expect(probe.failures).toEqual([]);
  expect(probe.waits.length).toBeGreaterThanOrEqual(MIN_CALLS);
  expect(Math.max(...probe.waits)).toBeLessThan(ANSWERED_WITHIN_MS);
}

async function nextMinute(s: Scheduler) {
  s.minute++;
  s.clock.set(Date.parse('2026-05-04T10:00:00.200Z') + s.minute * MINUTE);
  await s.r.app.tick();
  await s.r.app.relay.flush();
}

async function nextJob(s: Scheduler, task: Task): Promise<RenderJob> {
  let job: RenderJob | undefined;
  await until(async () => (job = (await s.renders.pending(task.id))[0]) !== undefined, 30_000, `a job of task ${task.id}`);
  return job!;
}

const runOf = async (s: Scheduler, task: Task, runId: string): Promise<TaskRun | undefined> =>
  (await s.r.runs(task.id)).find((x) => x.run_id === runId);

/** One run of a task (confirm off) rendered as `body`; its recorded change. */
async function run(s: Scheduler, task: Task, body: string): Promise<NonNullable<TaskRun['change']>> {
  await nextMinute(s);
  const job = await nextJob(s, task);
  await s.renders.render(job, body, HTML);
  const runId = job.run_id!;
  await until(async () => (await runOf(s, task, runId))?.change !== undefined, 90_000, `the comparison of ${runId}`);
  return (await runOf(s, task, runId))!.change!;
}

/** A text-monitored task of the harness's account (acc_test), confirm off. */
const textTask = (s: Scheduler, ignoreText: string[] = [], accountId = 'acc_test') =>
  s.r.create({
    account_id: accountId,
    name: 'Watched',
    api: 'scrape',
    query: 'url=http://127.0.0.1:9/page',
    frequency: 'every_minute',
    files_base_url: 'https://api.example/v1/files/',
    monitor: { mode: 'text', ignore_selectors: [], ignore_text: ignoreText, confirm: false },
  });

/** A listing whose every line differs from another seed's at the same place. */
const listing = (lines: number, seed: number) =>
  `<!doctype html><html><body>${Array.from({ length: lines }, (_, i) => `<div>Item ${(i * 7919 + seed) % 100_003} costs $${(i * seed) % 997}</div>`).join('\n')}</body></html>`;

describe('One account\'s monitor and the other accounts', () => {
  let s: Scheduler;

  beforeAll(async () => {
    s = await startScheduler();
  });

  afterAll(async () => {
    await s?.harness.stop();
  });

  describe('When a task is saved with 20 ignore_text patterns a backtracking analysis cannot decide', () => {
    const patterns = Array.from({ length: 20 }, (_, i) => `(?:(?:a|b)*c){1,500}d${String.fromCharCode(97 + i)}`);

    async function save(accountId: string) {
      try {
        await textTask(s, patterns, accountId);
      } catch (err) {
        if (isAppError(err)) return err;
        throw err;
      }
      throw new Error('the task was saved');
    }

    it('should refuse it naming each pattern, while another account\'s task list is answered throughout', async () => {
      const probe = await whileOthersList(s, () => save('acc_patterns'));
      expect(probe.result.code).toBe('invalid_parameter');
      expect(probe.result.details?.map((d) => d.parameter)).toEqual(patterns.map((_, i) => `monitor.ignore_text[${i}]`));
      expect(probe.result.details?.[0]?.message).toMatch(/linear-time engine/);
      expectServedThroughout(probe);
    });

    it('should refuse three such saves at once, while another account\'s task list is answered throughout', async () => {
      const probe = await whileOthersList(s, () => Promise.all(['acc_p1', 'acc_p2', 'acc_p3'].map((a) => save(a))));
      expect(probe.result.map((e) => e.details?.length)).toEqual([20, 20, 20]);
      expectServedThroughout(probe);
    });
  });

  describe('When a text monitor strips \\d+x-style patterns from a page of 80 kB of digits', () => {
    it('should compare its runs, while another account\'s task list is answered throughout', async () => {
      const task = await textTask(s, ['\\d+x', '\\d+y', '\\d+z']);
      const page = `<!doctype html><html><body><p>Total</p><p>${'7'.repeat(80_000)}</p></body></html>`;
      const probe = await whileOthersList(s, async () => [await run(s, task, page), await run(s, task, page)]);
      expect(probe.result.map((c) => c.status)).toEqual(['baseline', 'unchanged']);
      expect(new TextDecoder().decode((await s.renders.read(probe.result[1]!.after!))!)).toBe(`Total\n${'7'.repeat(80_000)}`);
      expectServedThroughout(probe);
      await s.r.remove(task.id);
    });
  });

  describe('When every line of a text-monitored page changes between runs', () => {
    it.each([2_000, 5_000, 20_000])(
      'should record the change of all %i lines, while another account\'s task list is answered throughout',
      async (lines) => {
        const task = await textTask(s);
        const [before, after] = [listing(lines, 1), listing(lines, 2)];
        const probe = await whileOthersList(s, async () => [await run(s, task, before), await run(s, task, after)]);
        expect(probe.result.map((c) => c.status)).toEqual(['baseline', 'changed']);
        expect(probe.result[1]!.summary).toMatch(new RegExp(`^${lines} lines added, ${lines} lines removed \\(more than 1000 lines differ`));
        expect(new TextDecoder().decode((await s.renders.read(probe.result[1]!.diff!))!)).toContain(`+Item 2 costs $0\n`);
        expectServedThroughout(probe);
        await s.r.remove(task.id);
      },
      180_000,
    );
  });
});

describe('A comparison that keeps running out of time', () => {
  let s: Scheduler;

  beforeAll(async () => {
    // A deadline no comparison of a 20,000-line page meets.
    s = await startScheduler({ SCHEDULER_COMPARE_TIMEOUT_MS: '20' });
  });

  afterAll(async () => {
    await s?.harness.stop();
  });

  it('should be recorded as failed after 3 deliveries, leave nothing to redeliver, and leave the task deletable', async () => {
    const task = await textTask(s);
    const page = listing(20_000, 1);
    const probe = await whileOthersList(s, () => run(s, task, page));
    expect(probe.result).toMatchObject({ status: 'failed', score: 0, summary: 'The comparison ran out of time on 3 attempts: this run is not compared; the baseline stays.' });
    expectServedThroughout(probe);
    // The comparison was delivered three times, then acknowledged: no message is left for a next scheduler.
    const jsm = await jetstreamManager(s.harness.nats.nc);
    const info = async (consumer: typeof SCHEDULER_TASK_RUNS_CONSUMER | typeof SCHEDULER_RUN_COMPARISONS_CONSUMER) =>
      jsm.consumers.info(consumer.stream, consumer.config.durable_name);
    await until(async () => (await info(SCHEDULER_RUN_COMPARISONS_CONSUMER)).num_ack_pending === 0, 10_000, 'the comparison acknowledged');
    const comparisons = await info(SCHEDULER_RUN_COMPARISONS_CONSUMER);
    expect([comparisons.num_pending, comparisons.num_ack_pending, comparisons.num_redelivered]).toEqual([0, 0, 0]);
    expect(comparisons.delivered.consumer_seq - comparisons.delivered.stream_seq).toBe(2);
    // Recording the outcome is apart: it was delivered once and acknowledged, whatever its comparison did.
    const outcomes = await info(SCHEDULER_TASK_RUNS_CONSUMER);
    expect([outcomes.num_pending, outcomes.num_ack_pending, outcomes.num_redelivered]).toEqual([0, 0, 0]);
    expect(outcomes.delivered.consumer_seq - outcomes.delivered.stream_seq).toBe(0);
    await s.r.remove(task.id);
    expect((await s.r.list()).map((t) => t.id)).toEqual([]);
  }, 120_000);
});
