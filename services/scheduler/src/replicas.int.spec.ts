import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { STREAMS } from '@app/messaging';
import { RenderJob } from '@app/proto/render';
import { until } from '@app/testkit';
import { sqliteEventStore, type StoredEvent } from '@app/event-store';
import { eventStoreTaskStreams } from './adapters/event-store-task-streams.js';
import { decide } from './domain/task/task.decider.js';
import { taskViews } from './projections/task-views/task-views.js';
import { occurrencesBetween } from './schedule/occurrences.js';
import { controlledClock } from './testing/controlled-clock.js';
import { streamMessages, releasedReservations } from './testing/nats.js';
import { recordingAuthQuota } from './testing/recording-auth-quota.js';
import { startSchedulerHarness, type Replica, type SchedulerHarness } from './testing/scheduler-harness.js';

// Two scheduler replicas (separate SQLite connections, NATS connections and gRPC servers) share one store
// and one nats-server, and tick at the same simulated instants. 10 simulated hours span Berlin's fall-back.

const HOUR = 3_600_000;
const START = Date.parse('2026-10-24T20:00:10Z');
const END = START + 10 * HOUR;
const STEP = 60_000;
const TARGET = 'url=http://127.0.0.1:9/page';

let harness: SchedulerHarness;
let a: Replica;
let b: Replica;
const clock = controlledClock(START);
const auth = recordingAuthQuota();

beforeAll(async () => {
  harness = await startSchedulerHarness({ SCHEDULER_SNAPSHOT_EVERY: '25' });
  a = await harness.replica({ clock, authQuota: auth.port });
  b = await harness.replica({ clock, authQuota: auth.port });
});

afterAll(async () => {
  await harness?.stop();
});

const started = (events: StoredEvent[]) =>
  events.filter((e) => e.type === 'TaskRunStarted').map((e) => e.data as { taskId: number; runId: string; dueAt: number });

/** Ticks both replicas at every step until `until`, running `at` hooks on the way. */
async function simulate(untilMs: number, hooks: Map<number, () => Promise<void>> = new Map()) {
  let startedByA = 0;
  let startedByB = 0;
  while (clock.ms() < untilMs) {
    clock.advance(STEP);
    for (const [at, hook] of hooks) {
      if (clock.ms() >= at) {
        hooks.delete(at);
        await hook();
      }
    }
    const [ra, rb] = await Promise.all([a.app.tick(), b.app.tick()]);
    startedByA += ra.started;
    startedByB += rb.started;
  }
  return { startedByA, startedByB };
}

describe('Scheduler replicas', () => {
  describe('When two replicas tick over 10 simulated hours', () => {
    it('should start every occurrence exactly once, in every zone, across the fall-back', async () => {
      const create = (r: Replica, name: string, frequency: string, timezone: string, crontab?: string) =>
        r.create({ name, api: 'screenshot', query: TARGET, frequency, timezone, ...(crontab ? { crontab } : {}) });
      const minutely = await create(a, 'minutely', 'every_minute', 'Etc/UTC'); // deleted after 2 hours
      const hourly = await create(b, 'hourly', 'every_hour', 'Europe/Berlin');
      const quarter = await create(a, 'quarter', 'custom', 'Europe/Berlin', '*/15 * * * *');
      const at0230 = await create(b, '02:30', 'custom', 'Europe/Berlin', '30 2 * * *');
      const daily = await create(a, 'daily', 'every_day', 'America/New_York');
      const monthly = await create(b, 'monthly', 'every_month', 'Asia/Tokyo');
      const paused = await create(b, 'paused', 'custom', 'Asia/Kolkata', '*/10 * * * *');
      const sydney = await create(a, 'sydney', 'custom', 'Australia/Sydney', '*/5 * * * *');
      const tasks = [minutely, hourly, quarter, at0230, daily, monthly, paused, sydney];
      expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
      expect([hourly.crontab, daily.crontab, monthly.crontab]).toEqual(['0 * * * *', '0 16 * * *', '0 5 25 * *']);

      const deleteAt = START + 2 * HOUR;
      const pauseAt = START + 5 * HOUR;
      const resumeAt = START + 7 * HOUR;
      const { startedByA, startedByB } = await simulate(
        END,
        new Map([
          [deleteAt, async () => void (await b.remove(minutely.id))],
          [pauseAt, async () => void (await b.update({ id: paused.id, enabled: false }))],
          [resumeAt, async () => void (await a.update({ id: paused.id, enabled: true }))],
        ]),
      );

      // Changes happen at the first step at or after their instant, and apply to later occurrences.
      const step = (t: number) => START + Math.ceil((t - START) / STEP) * STEP;
      const expected = new Map<number, number[]>([
        [minutely.id, occurrencesBetween('* * * * *', 'Etc/UTC', START, step(deleteAt) - STEP)],
        [hourly.id, occurrencesBetween('0 * * * *', 'Europe/Berlin', START, END)],
        [quarter.id, occurrencesBetween('*/15 * * * *', 'Europe/Berlin', START, END)],
        [at0230.id, occurrencesBetween('30 2 * * *', 'Europe/Berlin', START, END)],
        [daily.id, occurrencesBetween('0 16 * * *', 'America/New_York', START, END)],
        [monthly.id, occurrencesBetween('0 5 25 * *', 'Asia/Tokyo', START, END)],
        [
          paused.id,
          [
            ...occurrencesBetween('*/10 * * * *', 'Asia/Kolkata', START, step(pauseAt) - STEP),
            ...occurrencesBetween('*/10 * * * *', 'Asia/Kolkata', step(resumeAt), END),
          ],
        ],
        [sydney.id, occurrencesBetween('*/5 * * * *', 'Australia/Sydney', START, END)],
      ]);
      // Sanity of the vectors: 10 hours across Berlin's change, 02:30 once (the first one, CEST), no daily or monthly yet.
      expect(expected.get(minutely.id)).toHaveLength(119); // 20:01 … 21:59: deleted before the 22:00 tick
      expect(expected.get(hourly.id)).toHaveLength(10);
      expect(expected.get(quarter.id)).toHaveLength(40);
      expect(expected.get(at0230.id)).toEqual([Date.parse('2026-10-25T00:30:00Z')]);
      expect(expected.get(daily.id)).toEqual([]);
      expect(expected.get(monthly.id)).toEqual([]);
      expect(expected.get(sydney.id)).toHaveLength(120);

      const runs = started(await harness.events());
      const total = [...expected.values()].reduce((n, dues) => n + dues.length, 0);
      const byOccurrence = new Map<string, number>();
      for (const r of runs) byOccurrence.set(`${r.taskId}@${r.dueAt}`, (byOccurrence.get(`${r.taskId}@${r.dueAt}`) ?? 0) + 1);
      expect([...byOccurrence.values()].every((n) => n === 1)).toBe(true);
      expect(runs).toHaveLength(total);
      expect(startedByA + startedByB).toBe(total);
      for (const [taskId, dues] of expected) {
        expect(runs.filter((r) => r.taskId === taskId).map((r) => r.dueAt), `task ${taskId}`).toEqual(dues);
      }

      // Each run became one admission and one render job (the dispatchers of both replicas share the work).
      // Runs of the deleted task not yet handed over when it was deleted never are (it stops at once).
      const live = total - expected.get(minutely.id)!.length;
      const dispatchedRuns = async () => {
        const events = await harness.events();
        const dispatched = events
          .filter((e) => e.type === 'TaskRunDispatched')
          .map((e) => e.data as { taskId: number; runId: string; reservationId?: string });
        return { all: dispatched, live: dispatched.filter((d) => d.taskId !== minutely.id).length };
      };
      await until(async () => (await dispatchedRuns()).live === live, 60_000, 'every run of the live tasks dispatched');
      await sleep(300);
      const { all } = await dispatchedRuns();
      expect(new Set(all.map((d) => d.runId)).size).toBe(all.length);
      // Every admission was either dispatched or given back: a run of the deleted task admitted while
      // it waited in the dispatch backlog has its reservation announced for release (no job carries it)
      // when its dispatch finds the task gone.
      const dispatchedReservations = all.map((d) => d.reservationId);
      const released = await releasedReservations(harness.nats.nc);
      expect(released.every((id) => !dispatchedReservations.includes(id))).toBe(true);
      expect(auth.admitted.map((r) => r.reservationId).sort()).toEqual([...dispatchedReservations, ...released].sort());
      const jobs = (await streamMessages(harness.nats.nc, STREAMS.RENDER_JOBS.name)).map((m) => RenderJob.decode(m.data));
      expect(jobs).toHaveLength(all.length);
      expect(new Set(jobs.map((j) => j.run_id))).toEqual(new Set(all.map((d) => d.runId)));
      expect(jobs.every((j) => j.origin === 'task' && j.params?.url === 'http://127.0.0.1:9/page')).toBe(true);

      // The API's view of it: runs counts what started, and the deleted task is gone.
      const listed = await b.list();
      expect(listed.map((t) => [t.id, t.runs])).toEqual(
        [...expected].filter(([id]) => id !== minutely.id).map(([id, dues]) => [id, dues.length]),
      );
      const lastQuarter = (await harness.events()).filter((e) => e.type === 'TaskRunStarted' && (e.data as { taskId: number }).taskId === quarter.id).at(-1)!;
      expect((await a.get(quarter.id)).last_run).toBe(Math.floor((lastQuarter.data as { startedAt: number }).startedAt / 1000));
    }, 180_000);
  });

  describe('When the projection is rebuilt from the events', () => {
    it('should equal the one maintained as they came', async () => {
      const store = sqliteEventStore({ path: harness.config.eventsDb });
      try {
        const rebuilt = taskViews(store, { runHistoryLimit: harness.config.runHistoryLimit });
        await rebuilt.catchUp();
        await a.app.views.catchUp();
        expect(rebuilt.list('acc_test')).toEqual(a.app.views.list('acc_test'));
        for (const t of rebuilt.list('acc_test')) expect(rebuilt.runs('acc_test', t.id)).toEqual(a.app.views.runs('acc_test', t.id));
        expect(rebuilt.list('acc_test').length).toBeGreaterThan(0);
      } finally {
        await store.close();
      }
    });
  });

  describe('When both replicas claim the same occurrence many times at the same instant', () => {
    it('should start one run', async () => {
      const task = await a.create({ name: 'race', api: 'pdf', query: TARGET, frequency: 'every_minute' });
      const before = started(await harness.events()).filter((r) => r.taskId === task.id).length;
      clock.set(Math.ceil((clock.ms() + 1) / 60_000) * 60_000 + 5_000);
      const results = await Promise.all(Array.from({ length: 10 }, () => [a.app.tick(), b.app.tick()]).flat());
      const after = started(await harness.events()).filter((r) => r.taskId === task.id);
      expect(before).toBe(0);
      expect(after).toHaveLength(1);
      expect(results.reduce((n, r) => n + r.started, 0)).toBeGreaterThanOrEqual(1);
    });
  });

  describe('When 50 claims of one occurrence race through five store connections', () => {
    it('should commit exactly one, and the others should decide nothing', async () => {
      const task = await b.create({ name: 'fifty', api: 'screenshot', query: TARGET, frequency: 'every_minute' });
      const dueAt = Math.ceil((clock.ms() + 1) / 60_000) * 60_000;
      const stores = Array.from({ length: 5 }, () => sqliteEventStore({ path: harness.config.eventsDb }));
      try {
        const claims = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            eventStoreTaskStreams(stores[i % 5]!, { snapshotEvery: 100 }).change(task.id, (state) =>
              decide({ type: 'StartRun', data: { runId: `${task.id}-${dueAt / 1000}`, dueAt }, metadata: { now: dueAt + i } }, state),
            ),
          ),
        );
        expect(claims.filter((c) => c.events.length === 1)).toHaveLength(1);
        expect(claims.filter((c) => c.events.length === 0)).toHaveLength(49);
        expect(started(await harness.events()).filter((r) => r.taskId === task.id)).toHaveLength(1);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });
  });
});
