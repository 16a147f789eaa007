import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS, Objm, jetstream, renderJobPublisher } from '@app/messaging';
import { until } from '@app/testkit';
import { natsRenderJobs } from './adapters/nats-render-jobs.js';
import { controlledClock } from './testing/controlled-clock.js';
import { renderJobsIn, releasedReservations } from './testing/nats.js';
import { recordingAuthQuota } from './testing/recording-auth-quota.js';
import { startSchedulerHarness, type Replica, type SchedulerHarness } from './testing/scheduler-harness.js';

// A run whose job cannot be made ready in the lead time (the render-inputs store refuses, say), with a
// real nats-server and SQLite: the claim is given back and the reservation released, and the run still
// renders once, by the due-time path.

const at = (hhmmss: string) => Date.parse(`2026-03-02T${hhmmss}Z`);

let harness: SchedulerHarness;
let replica: Replica;
const clock = controlledClock(at('08:00:20'));
const auth = recordingAuthQuota();

beforeAll(async () => {
  harness = await startSchedulerHarness({ SCHEDULER_PREPARE_LEAD_MS: '20000' });
  const { nc } = harness.nats;
  const js = jetstream(nc);
  const real = natsRenderJobs(js, renderJobPublisher(js, await new Objm(nc).open(BUCKETS.renderInputs.name)));
  const jobs = { ...real, prepare: () => Promise.reject(new Error('render inputs unavailable')) };
  replica = await harness.replica({ clock, authQuota: auth.port, jobs });
});

afterAll(async () => {
  await harness?.stop();
});

const jobs = () => renderJobsIn(harness.nats.nc);
const released = () => releasedReservations(harness.nats.nc);
const eventsOf = async (type: string) => (await harness.events()).filter((e) => e.type === type);

async function tickAt(instant: number) {
  clock.set(instant);
  await replica.app.tick();
  await replica.app.relay.flush();
}

describe('A run whose job cannot be prepared ahead', () => {
  it('should give its claim back, release its reservation, and be rendered once at the due instant', async () => {
    const task = await replica.create({ name: 'unpreparable', api: 'screenshot', query: 'url=http://127.0.0.1:9/x&format=png', frequency: 'every_minute' });
    await tickAt(at('08:00:45'));
    await until(async () => (await eventsOf('TaskRunCancelled')).length >= 1, 10_000, 'the claim given back');
    expect((await eventsOf('TaskRunPrepared')).length).toBeGreaterThanOrEqual(1);
    const reservations = auth.admitted.map((a) => a.reservationId);
    expect(reservations.length).toBeGreaterThanOrEqual(1);
    await until(async () => {
      const all = await released();
      return reservations.every((r) => all.includes(r));
    }, 10_000, 'every reservation released');
    expect(await jobs()).toHaveLength(0);

    await tickAt(at('08:01:00'));
    const runId = `${task.id}-${at('08:01:00') / 1000}`;
    await until(async () => (await jobs()).some((j) => j.run_id === runId), 10_000, 'the job, from the due-time path');
    await new Promise((done) => setTimeout(done, 500));
    expect((await jobs()).filter((j) => j.run_id === runId)).toHaveLength(1);
  });
});
