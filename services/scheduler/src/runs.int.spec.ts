import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors, isAppError } from '@app/errors';
import { SUBJECTS, STREAMS, jetstream } from '@app/messaging';
import { RenderFinished, RenderJob } from '@app/proto/render';
import type { Task, TaskRun } from '@app/proto/scheduler';
import { until } from '@app/testkit';
import { controlledClock } from './testing/controlled-clock.js';
import { streamMessages } from './testing/nats.js';
import { recordingAuthQuota } from './testing/recording-auth-quota.js';
import { startSchedulerHarness, type Replica, type SchedulerHarness } from './testing/scheduler-harness.js';

// A task run end to end inside the scheduler, with a real nats-server and SQLite: the run claims its
// occurrence, is admitted, its job goes to RENDER_JOBS; the test plays the renderer by publishing the
// RenderFinished a renderer publishes; the outcome lands in the run history and settles the quota.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.parse('2026-03-02T08:00:20Z');

let harness: SchedulerHarness;
let r: Replica;
const clock = controlledClock(T0);
const auth = recordingAuthQuota();

beforeAll(async () => {
  harness = await startSchedulerHarness();
  r = await harness.replica({ clock, authQuota: auth.port });
});

afterAll(async () => {
  await harness?.stop();
});

const jobs = async () => (await streamMessages(harness.nats.nc, STREAMS.RENDER_JOBS.name)).map((m) => RenderJob.decode(m.data));
const jobsOf = async (task: Task) => (await jobs()).filter((j) => j.task_id === String(task.id));

/** Moves the clock to `at`, ticks, and publishes the outbox at once. */
async function tickAt(at: number) {
  clock.set(at);
  const result = await r.app.tick();
  await r.app.relay.flush();
  return result;
}

/** What a renderer publishes when it is done with a job. */
async function renderFinished(job: RenderJob, outcome: Pick<RenderFinished, 'status' | 'result' | 'error'>) {
  const event = RenderFinished.fromPartial({
    job_id: job.job_id,
    account_id: job.account_id,
    operation: job.operation,
    started_unix_ms: clock.ms(),
    finished_unix_ms: clock.ms() + 800,
    origin: job.origin,
    task_id: job.task_id,
    run_id: job.run_id,
    renderer_id: 'renderer-test',
    placement: job.placement,
    files_base_url: job.files_base_url,
    ...outcome,
  });
  await jetstream(harness.nats.nc).publish(SUBJECTS.renderEvent('task', 'finished', job.job_id), RenderFinished.encode(event).finish(), {
    msgID: `finished:${job.job_id}`,
  });
}

const codeOf = async (p: Promise<unknown>) => p.then(() => 'no error', (err: unknown) => (isAppError(err) ? err.code : String(err)));
const runOf = async (task: Task, runId: string): Promise<TaskRun | undefined> => (await r.runs(task.id)).find((x) => x.run_id === runId);

describe('Task runs', () => {
  let task: Task;

  beforeAll(async () => {
    task = await r.create({
      name: 'Front page',
      api: 'screenshot',
      query: 'url=http://127.0.0.1:9/front&format=png',
      frequency: 'every_minute',
      files_base_url: 'https://api.example/v1/files/',
    });
  });

  describe('When an every_minute task reaches its first occurrence and the render succeeds', () => {
    it('should publish one render job like an API call and record the result file', async () => {
      expect(await tickAt(T0 + 30_000)).toEqual({ started: 0, alreadyClaimed: 0 }); // 08:00:50: not yet
      expect(await tickAt(Date.parse('2026-03-02T08:01:00.300Z'))).toMatchObject({ started: 1 });

      await until(async () => (await jobsOf(task)).length === 1, 10_000, 'the render job');
      const [job] = await jobsOf(task);
      expect(job).toMatchObject({
        account_id: 'acc_test',
        operation: 'screenshot',
        origin: 'task',
        task_id: String(task.id),
        run_id: `${task.id}-${Date.parse('2026-03-02T08:01:00Z') / 1000}`,
        params: { url: 'http://127.0.0.1:9/front', format: 'png', viewport_width: 1280, timeout: 30 },
        created_unix_ms: Date.parse('2026-03-02T08:01:00.300Z'),
        deadline_unix_ms: Date.parse('2026-03-02T08:01:30.300Z'),
        files_base_url: 'https://api.example/v1/files/',
        placement: { ttl_ms: 24 * HOUR },
      });
      // The result is kept as a file whose unguessable name is the capability of its URL.
      const fileName = job!.placement!.object_name;
      expect(fileName).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(fileName).not.toBe(job!.job_id);
      expect(auth.admitted.at(-1)).toMatchObject({ accountId: 'acc_test', features: ['tasks'] });
      const reservation = auth.admitted.at(-1)!.reservationId;

      const running = await r.get(task.id);
      expect(running).toMatchObject({ runs: 1, last_run: Math.floor(Date.parse('2026-03-02T08:01:00.300Z') / 1000) });
      expect(await runOf(task, job!.run_id!)).toMatchObject({ status: 'running', due: Date.parse('2026-03-02T08:01:00Z') / 1000 });

      await renderFinished(job!, {
        status: 'succeeded',
        result: { object_name: fileName, content_type: 'image/png', extension: 'png', size: 1234, headers: {}, expires_unix_ms: clock.ms() + 24 * HOUR },
      });
      await until(async () => (await runOf(task, job!.run_id!))?.status === 'succeeded', 10_000, 'the run to succeed');
      expect(await runOf(task, job!.run_id!)).toMatchObject({ status: 'succeeded', file: fileName, started: running.last_run });
      // The job carries the run's reservation: auth-quota settles it from the render's outcome.
      expect(job!.reservation_id).toBe(reservation);
    });
  });

  describe('When the render of a run fails', () => {
    it('should record the error (the job carried the reservation to its settlement)', async () => {
      await tickAt(Date.parse('2026-03-02T08:02:00.200Z'));
      await until(async () => (await jobsOf(task)).length === 2, 10_000, 'the second job');
      const job = (await jobsOf(task)).at(-1)!;
      const reservation = auth.admitted.at(-1)!.reservationId;
      await renderFinished(job, { status: 'failed', error: { code: 'render_timeout', message: 'The render did not finish within the timeout of 30 seconds.' } });
      await until(async () => (await runOf(task, job.run_id!))?.status === 'failed', 10_000, 'the run to fail');
      expect(await runOf(task, job.run_id!)).toMatchObject({ error_code: 'render_timeout', file: undefined });
      expect(job.reservation_id).toBe(reservation);
    });
  });

  describe('When auth-quota refuses a run', () => {
    it('should record a failed run with the error code and publish no job', async () => {
      auth.refuse('acc_test', errors.quotaExceeded(3600));
      try {
        await tickAt(Date.parse('2026-03-02T08:03:00.100Z'));
        const runId = `${task.id}-${Date.parse('2026-03-02T08:03:00Z') / 1000}`;
        await until(async () => (await runOf(task, runId))?.status === 'failed', 10_000, 'the refused run');
        expect(await runOf(task, runId)).toMatchObject({ error_code: 'quota_exceeded', error_message: 'The monthly render quota of the account is used up.' });
        expect(await jobsOf(task)).toHaveLength(2);
        expect((await r.get(task.id)).runs).toBe(3);
      } finally {
        auth.allow('acc_test');
      }
    });
  });

  describe('When the task is disabled', () => {
    it('should not run until it is enabled again, and then only for later occurrences', async () => {
      await r.update({ id: task.id, enabled: false });
      expect(await tickAt(Date.parse('2026-03-02T08:04:00.100Z'))).toMatchObject({ started: 0 });
      expect(await tickAt(Date.parse('2026-03-02T08:05:00.100Z'))).toMatchObject({ started: 0 });
      clock.set(Date.parse('2026-03-02T08:05:30Z'));
      await r.update({ id: task.id, enabled: true });
      expect(await tickAt(Date.parse('2026-03-02T08:05:59Z'))).toMatchObject({ started: 0 });
      expect(await tickAt(Date.parse('2026-03-02T08:06:00.100Z'))).toMatchObject({ started: 1 });
      expect((await r.get(task.id)).runs).toBe(4);
    });
  });

  describe('When the task is deleted', () => {
    it('should be gone at once and never run again', async () => {
      await until(async () => (await jobsOf(task)).length === 3, 10_000, 'the job of 08:06');
      await r.remove(task.id);
      expect(await codeOf(r.get(task.id))).toBe('task_not_found');
      expect(await codeOf(r.runs(task.id))).toBe('task_not_found');
      expect(await codeOf(r.remove(task.id))).toBe('task_not_found');
      const startedBefore = (await harness.events()).filter((e) => e.type === 'TaskRunStarted').length;
      for (let m = 7; m <= 12; m++) await tickAt(Date.parse(`2026-03-02T08:${String(m).padStart(2, '0')}:00.100Z`));
      await new Promise((res) => setTimeout(res, 300));
      expect((await harness.events()).filter((e) => e.type === 'TaskRunStarted')).toHaveLength(startedBefore);
      expect(await jobsOf(task)).toHaveLength(3);
    });
  });
});

describe('Catch-up after downtime', () => {
  describe('When hourly occurrences were missed and the latest is less than an hour old', () => {
    it('should run that one only', async () => {
      clock.set(Date.parse('2026-03-02T09:10:00Z'));
      const hourly = await r.create({ name: 'hourly', api: 'scrape', query: 'url=http://127.0.0.1:9/', frequency: 'every_hour' });
      expect(hourly.crontab).toBe('10 * * * *');
      // Down from 09:10 to 12:30: 10:10, 11:10 and 12:10 were missed.
      expect(await tickAt(Date.parse('2026-03-02T12:30:00Z'))).toMatchObject({ started: 1 });
      expect(await tickAt(Date.parse('2026-03-02T12:30:01Z'))).toMatchObject({ started: 0 });
      expect((await r.runs(hourly.id)).map((x) => x.due)).toEqual([Date.parse('2026-03-02T12:10:00Z') / 1000]);
    });
  });

  describe('When the only missed occurrence is more than an hour old', () => {
    it('should skip it and run the next one on time', async () => {
      clock.set(Date.parse('2026-03-02T12:40:00Z'));
      const daily = await r.create({ name: 'daily', api: 'pdf', query: 'html=<p>x</p>', frequency: 'every_day', timezone: 'Europe/Berlin' });
      expect(daily.crontab).toBe('40 13 * * *');
      await tickAt(Date.parse('2026-03-03T13:45:00Z')); // 12:40Z was 65 minutes ago
      expect(await r.runs(daily.id)).toEqual([]);
      await tickAt(Date.parse('2026-03-04T12:40:00.500Z'));
      expect((await r.runs(daily.id)).map((x) => x.due)).toEqual([Date.parse('2026-03-04T12:40:00Z') / 1000]);
    });
  });
});
