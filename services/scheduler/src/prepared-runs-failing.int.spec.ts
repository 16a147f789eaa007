import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '@app/testkit';
import type { RenderJobs } from './application/ports.js';
import { controlledClock } from './testing/controlled-clock.js';
import { realRenderJobs, releasedReservations, renderJobsIn } from './testing/nats.js';
import { recordingAuthQuota } from './testing/recording-auth-quota.js';
import { startSchedulerHarness, type Replica, type SchedulerHarness } from './testing/scheduler-harness.js';

// Prepared runs whose RENDER_JOBS publishing fails, with a real nats-server and SQLite: a run whose job
// cannot be made ready in the lead time, and a run whose job reaches the queue at the due instant while
// its acknowledgement is lost. Each renders exactly once, and quota is held only by a run that starts.

const at = (hhmmss: string) => Date.parse(`2026-03-02T${hhmmss}Z`);

/** A scheduler replica whose RENDER_JOBS adapter is the real one as `wrap` changes it, ticked by hand from 08:00:20. */
function replicaWithJobs(wrap: (real: RenderJobs) => RenderJobs) {
  const clock = controlledClock(at('08:00:20'));
  const auth = recordingAuthQuota();
  let harness: SchedulerHarness;
  let replica: Replica;
  beforeAll(async () => {
    harness = await startSchedulerHarness({ SCHEDULER_PREPARE_LEAD_MS: '20000' });
    replica = await harness.replica({ clock, authQuota: auth.port, jobs: wrap(await realRenderJobs(harness.nats.nc)) });
  });
  afterAll(async () => {
    await harness?.stop();
  });
  return {
    auth,
    create: (name: string) => replica.create({ name, api: 'screenshot', query: 'url=http://127.0.0.1:9/x&format=png', frequency: 'every_minute' }),
    jobs: () => renderJobsIn(harness.nats.nc),
    released: () => releasedReservations(harness.nats.nc),
    eventsOf: async (type: string) => (await harness.events()).filter((e) => e.type === type),
    /** Moves the clock to `instant`, ticks, and publishes the outbox. */
    async tickAt(instant: number) {
      clock.set(instant);
      await replica.app.tick();
      await replica.app.relay.flush();
    },
  };
}

describe('A run whose job cannot be prepared ahead', () => {
  const s = replicaWithJobs((real) => ({ ...real, prepare: () => Promise.reject(new Error('render inputs unavailable')) }));

  it('should give its claim back, release its reservation, and be rendered once at the due instant', async () => {
    const task = await s.create('unpreparable');
    await s.tickAt(at('08:00:45'));
    await until(async () => (await s.eventsOf('TaskRunCancelled')).length >= 1, 10_000, 'the claim given back');
    expect((await s.eventsOf('TaskRunPrepared')).length).toBeGreaterThanOrEqual(1);
    const reservations = s.auth.admitted.map((a) => a.reservationId);
    expect(reservations.length).toBeGreaterThanOrEqual(1);
    await until(async () => {
      const all = await s.released();
      return reservations.every((r) => all.includes(r));
    }, 10_000, 'every reservation released');
    expect(await s.jobs()).toHaveLength(0);

    await s.tickAt(at('08:01:00'));
    const runId = `${task.id}-${at('08:01:00') / 1000}`;
    await until(async () => (await s.jobs()).some((j) => j.run_id === runId), 10_000, 'the job, from the due-time path');
    await new Promise((done) => setTimeout(done, 500));
    expect((await s.jobs()).filter((j) => j.run_id === runId)).toHaveLength(1);
  });
});

describe('A prepared run whose acknowledgement is lost at the due instant', () => {
  let lostAcks = 0;
  // The first publish of each prepared job lands in the stream, then its caller hears a timeout.
  const s = replicaWithJobs((real) => ({
    ...real,
    async prepare(job) {
      const prepared = await real.prepare(job);
      let first = true;
      return {
        async publish() {
          await prepared.publish();
          if (first) {
            first = false;
            lostAcks += 1;
            throw Object.assign(new Error('TIMEOUT'), { code: 'TIMEOUT' });
          }
        },
      };
    },
  }));

  it('should publish its job again under the same id, start once, keep its reservation, and render once', async () => {
    const task = await s.create('lost-ack');
    await s.tickAt(at('08:00:45'));
    await until(async () => (await s.eventsOf('TaskRunPrepared')).length === 1, 10_000, 'the prepared run');

    await s.tickAt(at('08:01:00'));
    const runId = `${task.id}-${at('08:01:00') / 1000}`;
    await until(async () => (await s.eventsOf('TaskRunStarted')).length === 1, 10_000, 'the run started');
    expect(lostAcks).toBe(1);
    // The due-time path of a later tick finds nothing to claim again.
    await s.tickAt(at('08:01:01'));
    await new Promise((done) => setTimeout(done, 500));
    const ofRun = (await s.jobs()).filter((j) => j.run_id === runId);
    expect(ofRun).toHaveLength(1);
    expect(ofRun[0]!.reservation_id).toBe(s.auth.admitted[0]!.reservationId);
    expect(await s.eventsOf('TaskRunCancelled')).toHaveLength(0);
    expect(await s.released()).toHaveLength(0);
  });
});
