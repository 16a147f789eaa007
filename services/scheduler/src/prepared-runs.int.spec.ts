import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@app/proto/scheduler';
import { until } from '@app/testkit';
import { controlledClock } from './testing/controlled-clock.js';
import { renderJobsIn, releasedReservations } from './testing/nats.js';
import { recordingAuthQuota } from './testing/recording-auth-quota.js';
import { startSchedulerHarness, type Replica, type SchedulerHarness } from './testing/scheduler-harness.js';

// Runs prepared ahead of their due instant (SCHEDULER_PREPARE_LEAD_MS), with a real nats-server and
// SQLite, two replicas on one store: in the lead time one replica checks, admits and claims each run;
// at the due instant only the jobs go out. A task disabled or deleted in the lead time never renders and
// costs nothing: its reservation is announced as ended without a job (auth-quota releases it).

const T0 = Date.parse('2026-03-02T08:00:20Z');
const at = (hhmmss: string) => Date.parse(`2026-03-02T${hhmmss}Z`);

let harness: SchedulerHarness;
const replicas: Replica[] = [];
const clock = controlledClock(T0);
const auths = [recordingAuthQuota(), recordingAuthQuota()];
/** Dispatch lags (ms after the due instant) each replica reported for the jobs it published. */
const lags: number[] = [];

beforeAll(async () => {
  // Few runs prepared at once per replica, so that a burst is shared by both.
  harness = await startSchedulerHarness({ SCHEDULER_PREPARE_LEAD_MS: '20000', SCHEDULER_DISPATCH_CONCURRENCY: '4' });
  for (const auth of auths) replicas.push(await harness.replica({ clock, authQuota: auth.port, onDispatched: (lagMs) => void lags.push(lagMs) }));
});

afterAll(async () => {
  await harness?.stop();
});

const jobs = () => renderJobsIn(harness.nats.nc);
const jobsOf = async (task: Task) => (await jobs()).filter((j) => j.task_id === String(task.id));
const admitted = () => auths.flatMap((a) => a.admitted);
const released = () => releasedReservations(harness.nats.nc);
const eventsOf = async (type: string, task?: Task) =>
  (await harness.events()).filter((e) => e.type === type && (!task || e.streamId === `task-${task.id}`));

/** Moves the clock to `instant`, ticks every replica, and publishes their outboxes. */
async function tickAt(instant: number) {
  clock.set(instant);
  for (const r of replicas) {
    await r.app.tick();
    await r.app.relay.flush();
  }
}

const create = (name: string) =>
  replicas[0]!.create({ name, api: 'screenshot', query: `url=http://127.0.0.1:9/${name}&format=png`, frequency: 'every_minute' });

describe('Runs prepared ahead of their due instant', () => {
  describe('When an every_minute task comes within the lead time', () => {
    let task: Task;
    beforeAll(async () => {
      clock.set(T0);
      task = await create('prepared');
    });

    it('should admit and claim the run in the lead time, and publish nothing before the due instant', async () => {
      await tickAt(at('08:00:30')); // 30 s ahead: not yet
      expect(await eventsOf('TaskRunPrepared', task)).toHaveLength(0);
      await tickAt(at('08:00:45'));
      await until(async () => (await eventsOf('TaskRunPrepared', task)).length === 1, 10_000, 'the prepared run');
      expect(admitted()).toHaveLength(1);
      expect(await jobsOf(task)).toHaveLength(0);
      expect((await replicas[0]!.get(task.id)).runs).toBe(0);
    });

    it('should publish its job once at the due instant, stamped with it, and count the run', async () => {
      await tickAt(at('08:01:00'));
      await until(async () => (await jobsOf(task)).length === 1, 10_000, 'the job');
      const [job] = await jobsOf(task);
      expect(job).toMatchObject({ run_id: `${task.id}-${at('08:01:00') / 1000}`, created_unix_ms: at('08:01:00'), origin: 'task' });
      // The job carries the run's reservation: auth-quota settles it from the render's outcome.
      expect(job!.reservation_id).toBe(admitted()[0]!.reservationId);
      // The dispatch-lag metric hears of it: published at its due instant (the controlled clock stands still).
      expect(lags).toEqual([0]);
      await until(async () => (await replicas[1]!.get(task.id)).runs === 1, 10_000, 'the run counted');
      // Neither the other replica nor the dispatcher of started runs renders it again.
      await tickAt(at('08:01:00.500'));
      await new Promise((done) => setTimeout(done, 500));
      expect(await jobsOf(task)).toHaveLength(1);
      expect(await eventsOf('TaskRunStarted', task)).toHaveLength(1);
      expect(await released()).toHaveLength(0);
      await replicas[0]!.update({ id: task.id, enabled: false });
    });
  });

  describe.each([
    ['disabled', (r: Replica, t: Task) => r.update({ id: t.id, enabled: false })],
    ['deleted', (r: Replica, t: Task) => r.remove(t.id)],
  ])('When the task is %s in the lead time', (what, change) => {
    it('should cancel the run: no job, no run, and its reservation released', async () => {
      clock.set(at('08:01:10'));
      const task = await create(`cancelled-${what}`);
      const before = admitted().length;
      await tickAt(at('08:01:45'));
      await until(async () => (await eventsOf('TaskRunPrepared', task)).length === 1, 10_000, 'the prepared run');
      const reservation = admitted().at(-1)!.reservationId;
      expect(admitted()).toHaveLength(before + 1);
      await change(replicas[1]!, task);
      await tickAt(at('08:02:00'));
      await until(async () => (await released()).includes(reservation!), 10_000, 'the reservation released');
      await new Promise((done) => setTimeout(done, 500));
      expect(await jobsOf(task)).toHaveLength(0);
      expect(await eventsOf('TaskRunStarted', task)).toHaveLength(0);
    });
  });

  describe('When many tasks fall due at once with two replicas', () => {
    it('should split the preparation between them, admit each run once, and publish each job once', async () => {
      clock.set(at('08:02:10'));
      const tasks: Task[] = [];
      for (let i = 0; i < 60; i++) tasks.push(await create(`burst-${i}`));
      const admittedBefore = auths.map((a) => a.admitted.length);
      await tickAt(at('08:02:45'));
      await until(async () => (await eventsOf('TaskRunPrepared')).filter((e) => tasks.some((t) => e.streamId === `task-${t.id}`)).length === 60, 20_000, 'every run prepared');
      const shares = auths.map((a, i) => a.admitted.length - admittedBefore[i]!);
      expect(shares[0]! + shares[1]!).toBe(60);
      expect(shares.every((s) => s > 0)).toBe(true);
      expect(await released()).toHaveLength(2); // the two cancelled runs above, none here
      await tickAt(at('08:03:00'));
      const ids = new Set(tasks.map((t) => String(t.id)));
      await until(async () => (await jobs()).filter((j) => ids.has(j.task_id ?? '')).length === 60, 20_000, 'every job');
      await new Promise((done) => setTimeout(done, 500));
      const runIds = (await jobs()).filter((j) => ids.has(j.task_id ?? '')).map((j) => j.run_id);
      expect(new Set(runIds).size).toBe(60);
      expect(runIds).toHaveLength(60);
    });
  });

  describe("When a monitoring task's monitor is changed in the lead time", () => {
    it('should start the run with the monitor as of its start: the prepared job is not published, the run renders with the new one', async () => {
      clock.set(at('08:03:10'));
      const task = await replicas[0]!.create({
        name: 'monitored',
        api: 'screenshot',
        query: 'url=http://127.0.0.1:9/monitored&format=png',
        frequency: 'every_minute',
        monitor: { mode: 'visual', ignore_selectors: ['.ad'], ignore_text: [], confirm: false },
      });
      await tickAt(at('08:03:45'));
      await until(async () => (await eventsOf('TaskRunPrepared', task)).length === 1, 30_000, 'the prepared run');
      const prepared = ((await eventsOf('TaskRunPrepared', task))[0]!.data as { reservationId?: string }).reservationId;
      expect(prepared).toBeDefined();
      await replicas[1]!.update({ id: task.id, monitor: { mode: 'visual', ignore_selectors: ['.banner'], ignore_text: [], confirm: false } });
      await tickAt(at('08:04:00'));
      // Cancelled at the due instant (by the tick, or by the due-instant timer racing it); a tick after the
      // cancellation (the ticker's next, 250 ms on) claims the occurrence again, and the due-time path starts it.
      await until(async () => (await eventsOf('TaskRunCancelled', task)).length === 1, 30_000, 'the prepared run cancelled');
      await tickAt(at('08:04:00.250'));
      await until(async () => (await jobsOf(task)).length === 1, 30_000, "the run's job");
      const [job] = await jobsOf(task);
      expect(job).toMatchObject({ run_id: `${task.id}-${at('08:04:00') / 1000}` });
      expect(job!.params!.hide_selectors).toEqual(['.banner']);
      // The job built ahead (with the old monitor) never went out; its reservation was released.
      expect(await released()).toContain(prepared);
      await new Promise((done) => setTimeout(done, 500));
      expect(await jobsOf(task)).toHaveLength(1);
    });
  });
});
