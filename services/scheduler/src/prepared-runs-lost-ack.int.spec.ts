import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS, Objm, jetstream, renderJobPublisher } from '@app/messaging';
import { until } from '@app/testkit';
import { natsRenderJobs } from './adapters/nats-render-jobs.js';
import type { RenderJobs } from './application/ports.js';
import { controlledClock } from './testing/controlled-clock.js';
import { renderJobsIn, releasedReservations } from './testing/nats.js';
import { recordingAuthQuota } from './testing/recording-auth-quota.js';
import { startSchedulerHarness, type Replica, type SchedulerHarness } from './testing/scheduler-harness.js';

// A prepared run whose job reaches the queue at the due instant but whose acknowledgement is lost on the
// way back (a timeout), with a real nats-server and SQLite: the job is published again under the same id
// (the queue keeps one), the run is started once, its reservation kept, and nothing renders it twice.

const at = (hhmmss: string) => Date.parse(`2026-03-02T${hhmmss}Z`);

let harness: SchedulerHarness;
let replica: Replica;
const clock = controlledClock(at('08:00:20'));
const auth = recordingAuthQuota();
let lostAcks = 0;

beforeAll(async () => {
  harness = await startSchedulerHarness({ SCHEDULER_PREPARE_LEAD_MS: '20000' });
  const { nc } = harness.nats;
  const js = jetstream(nc);
  const real = natsRenderJobs(js, renderJobPublisher(js, await new Objm(nc).open(BUCKETS.renderInputs.name)));
  // The first publish of each prepared job lands in the stream, then its caller hears a timeout.
  const jobs: RenderJobs = {
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
  };
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

describe('A prepared run whose acknowledgement is lost at the due instant', () => {
  it('should publish its job again under the same id, start once, keep its reservation, and render once', async () => {
    const task = await replica.create({ name: 'lost-ack', api: 'screenshot', query: 'url=http://127.0.0.1:9/x&format=png', frequency: 'every_minute' });
    await tickAt(at('08:00:45'));
    await until(async () => (await eventsOf('TaskRunPrepared')).length === 1, 10_000, 'the prepared run');

    await tickAt(at('08:01:00'));
    const runId = `${task.id}-${at('08:01:00') / 1000}`;
    await until(async () => (await eventsOf('TaskRunStarted')).length === 1, 10_000, 'the run started');
    expect(lostAcks).toBe(1);
    // The due-time path of a later tick finds nothing to claim again.
    await tickAt(at('08:01:01'));
    await new Promise((done) => setTimeout(done, 500));
    const ofRun = (await jobs()).filter((j) => j.run_id === runId);
    expect(ofRun).toHaveLength(1);
    expect(ofRun[0]!.reservation_id).toBe(auth.admitted[0]!.reservationId);
    expect(await eventsOf('TaskRunCancelled')).toHaveLength(0);
    expect(await released()).toHaveLength(0);
  });
});
