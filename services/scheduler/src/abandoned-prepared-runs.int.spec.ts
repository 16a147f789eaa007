import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderJob } from '@app/proto/render';
import type { Task } from '@app/proto/scheduler';
import { until } from '@app/testkit';
import type { RenderJobs } from './application/ports.js';
import { controlledClock } from './testing/controlled-clock.js';
import { fakeRenders } from './testing/fake-renders.js';
import { realRenderJobs, releasedReservations, renderJobsIn } from './testing/nats.js';
import { recordingAuthQuota } from './testing/recording-auth-quota.js';
import { startSchedulerHarness, type Replica, type SchedulerHarness } from './testing/scheduler-harness.js';

// Runs prepared ahead by a replica that then dies (SIGKILL) before recording their start, with a real
// nats-server and SQLite. The holder is played by a replica whose prepared jobs' publishes never return,
// either before the job goes out or right after (so it never records the start, nor gives the runs back);
// a second replica, started once the runs are prepared, recovers them on its ticks 15 s after their due
// instant: each job is on the render-jobs queue once, each run recorded, none lost.

const T0 = Date.parse('2026-03-02T08:00:20Z');
const at = (hhmmss: string) => Date.parse(`2026-03-02T${hhmmss}Z`);
const DUE = at('08:01:00');

let harness: SchedulerHarness;
let holder: Replica;
let recoverer: Replica;
const clock = controlledClock(T0);
const auth = recordingAuthQuota();
/** How the holder dies while publishing each task's prepared job, by task id. */
const dies = new Map<string, 'before-publishing' | 'after-publishing'>();
/** The jobs the holder prepared, by task id. */
const prepared = new Map<string, RenderJob>();
const tasks: Record<'killedBefore' | 'killedAfter' | 'rendered' | 'changed', Task> = {} as never;

beforeAll(async () => {
  harness = await startSchedulerHarness({ SCHEDULER_PREPARE_LEAD_MS: '20000', SCHEDULER_PREPARED_RUN_GRACE_MS: '15000' });
  const real = await realRenderJobs(harness.nats.nc);
  const dying: RenderJobs = {
    ...real,
    async prepare(job) {
      prepared.set(job.task_id ?? '', job);
      const ready = await real.prepare(job);
      return {
        async publish() {
          const death = dies.get(job.task_id ?? '');
          if (death === 'after-publishing') await ready.publish();
          if (death) return new Promise<void>(() => undefined);
          return ready.publish();
        },
      };
    },
  };
  holder = await harness.replica({ clock, authQuota: auth.port, jobs: dying });
  const create = async (name: string, death?: 'before-publishing' | 'after-publishing') => {
    const task = await holder.create({ name, api: 'screenshot', query: `url=http://127.0.0.1:9/${name}&format=png`, frequency: 'every_minute' });
    if (death) dies.set(String(task.id), death);
    return task;
  };
  clock.set(T0);
  tasks.killedBefore = await create('killed-before-publishing', 'before-publishing');
  tasks.killedAfter = await create('killed-after-publishing', 'after-publishing');
  tasks.rendered = await create('rendered-before-recorded', 'after-publishing');
  tasks.changed = await create('changed-after-death', 'before-publishing');
});

afterAll(async () => {
  await harness?.stop();
});

const jobsOf = async (task: Task) => (await renderJobsIn(harness.nats.nc)).filter((j) => j.task_id === String(task.id));
const eventsOf = async (type: string, task: Task) => (await harness.events()).filter((e) => e.type === type && e.streamId === `task-${task.id}`);
const reservationOf = (task: Task) => prepared.get(String(task.id))!.reservation_id;
const released = () => releasedReservations(harness.nats.nc);
/** The job as the queue holds it (decoded as a renderer reads it). */
const asQueued = (job: RenderJob) => RenderJob.decode(RenderJob.encode(job).finish());

async function tickRecoverer(instant: number) {
  clock.set(instant);
  await recoverer.app.tick();
  await recoverer.app.relay.flush();
}

describe('Prepared runs abandoned by the replica that prepared them', () => {
  beforeAll(async () => {
    // The holder prepares every run in the lead time, alone (the other replica is not running yet).
    clock.set(at('08:00:45'));
    await holder.app.tick();
    await holder.app.relay.flush();
    await until(async () => (await harness.events()).filter((e) => e.type === 'TaskRunPrepared').length === 4, 30_000, 'four prepared runs');
    recoverer = await harness.replica({ clock, authQuota: recordingAuthQuota().port });
    // The due instant: the holder's timer publishes two of the jobs, then it "dies" (its publishes never return).
    clock.set(DUE);
    await until(async () => (await jobsOf(tasks.killedAfter)).length === 1 && (await jobsOf(tasks.rendered)).length === 1, 30_000, 'the jobs that went out');
  }, 90_000);

  it("should record a run whose job rendered though its start was never recorded: started, then finished", async () => {
    const renders = await fakeRenders(harness.nats.nc, () => clock.ms());
    const [job] = await jobsOf(tasks.rendered);
    await renders.render(job!, 'png-bytes', { extension: 'png', contentType: 'image/png' });
    await until(async () => (await recoverer.runs(tasks.rendered.id)).some((r) => r.status === 'succeeded'), 30_000, 'the run recorded as succeeded');
    const [run] = await recoverer.runs(tasks.rendered.id);
    expect(run).toMatchObject({ run_id: `${tasks.rendered.id}-${DUE / 1000}`, status: 'succeeded' });
    expect(await eventsOf('TaskRunStarted', tasks.rendered)).toHaveLength(1);
  });

  it('should leave the runs to their holder during the grace period', async () => {
    await recoverer.update({ id: tasks.changed.id, query: 'url=http://127.0.0.1:9/changed-after-death-v2&format=png' });
    await tickRecoverer(at('08:01:14'));
    expect(await jobsOf(tasks.killedBefore)).toHaveLength(0);
    expect(await eventsOf('TaskRunStarted', tasks.killedBefore)).toHaveLength(0);
    expect(await eventsOf('TaskRunCancelled', tasks.changed)).toHaveLength(0);
  });

  it('should then publish the job of a run killed before its job went out, as it was prepared, and record the run started', async () => {
    await tickRecoverer(at('08:01:15'));
    await until(async () => (await jobsOf(tasks.killedBefore)).length === 1, 30_000, 'the recovered job');
    const [job] = await jobsOf(tasks.killedBefore);
    // The same job id, result file, reservation and stamp (its due instant) as the job the holder prepared.
    expect(job).toEqual(asQueued(prepared.get(String(tasks.killedBefore.id))!));
    expect(job).toMatchObject({ run_id: `${tasks.killedBefore.id}-${DUE / 1000}`, created_unix_ms: DUE });
    await until(async () => (await recoverer.get(tasks.killedBefore.id)).runs === 1, 30_000, 'the run counted');
    expect(await eventsOf('TaskRunStarted', tasks.killedBefore)).toHaveLength(1);
  });

  it('should publish the job of a run killed after its job went out once more under the same id: it is queued once', async () => {
    await until(async () => (await recoverer.get(tasks.killedAfter.id)).runs === 1, 30_000, 'the run counted');
    expect(await jobsOf(tasks.killedAfter)).toHaveLength(1);
    expect(await eventsOf('TaskRunStarted', tasks.killedAfter)).toHaveLength(1);
    // Their reservations are the jobs' to settle: none released.
    const ended = await released();
    for (const t of [tasks.killedBefore, tasks.killedAfter, tasks.rendered]) expect(ended).not.toContain(reservationOf(t));
  });

  it('should cancel a run whose task changed since (its reservation released) and run its occurrence late with the task as it is', async () => {
    await until(async () => (await released()).includes(reservationOf(tasks.changed)!), 30_000, 'the reservation released');
    expect(await eventsOf('TaskRunCancelled', tasks.changed)).toHaveLength(1);
    await until(async () => (await jobsOf(tasks.changed)).length === 1, 30_000, "the late run's job");
    const [job] = await jobsOf(tasks.changed);
    expect(job).toMatchObject({ run_id: `${tasks.changed.id}-${DUE / 1000}` });
    expect(job!.params!.url).toBe('http://127.0.0.1:9/changed-after-death-v2');
    expect(job!.job_id).not.toBe(prepared.get(String(tasks.changed.id))!.job_id);
  });

  it('should recover each run once, whichever replica ticks next', async () => {
    await tickRecoverer(at('08:01:16'));
    await new Promise((done) => setTimeout(done, 500));
    for (const t of Object.values(tasks)) {
      expect(await jobsOf(t)).toHaveLength(1);
      expect(await eventsOf('TaskRunStarted', t)).toHaveLength(1);
    }
  });
});
