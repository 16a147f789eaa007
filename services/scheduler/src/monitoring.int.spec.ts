import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { STREAMS, SUBJECTS } from '@app/messaging';
import type { RenderJob } from '@app/proto/render';
import { TaskChangedEvent, type Task, type TaskRun } from '@app/proto/scheduler';
import { until } from '@app/testkit';
import { controlledClock } from './testing/controlled-clock.js';
import { fakeRenders, type FakeRenders } from './testing/fake-renders.js';
import { streamMessages } from './testing/nats.js';
import { recordingAuthQuota } from './testing/recording-auth-quota.js';
import { startSchedulerHarness, type Replica, type SchedulerHarness } from './testing/scheduler-harness.js';
import { netGuardTarget } from './adapters/net-guard-target.js';
import type { TargetGuard } from './application/ports.js';

// Change monitoring inside the scheduler, with a real nats-server, object store and SQLite: the test plays
// the renderer (the page's content is what the test says it is at each run), the scheduler compares each
// run with the last successful one, records the comparison as a task event, renders a suspected change
// once more, and relays each change once to `scheduler.task.changed` for the webhook dispatcher.

const MINUTE = 60_000;
const T0 = Date.parse('2026-05-04T10:00:20Z');
const FILES = 'https://api.example/v1/files/';
const HTML = { extension: 'html', contentType: 'text/html; charset=utf-8' };
const PNG = { extension: 'png', contentType: 'image/png' };

let harness: SchedulerHarness;
let r: Replica;
let renders: FakeRenders;
const clock = controlledClock(T0);
const auth = recordingAuthQuota();
let minute = 0;
/**
 * The SSRF policy of the deployment (private addresses allowed, as the harness's pages are local), which a
 * test can turn strict, as if the page's address had come to resolve to a private one.
 */
const policy = { strict: false };
const guard: TargetGuard = {
  check: (url, parameter) => netGuardTarget({ allowPrivate: !policy.strict }).check(url, parameter),
  checkWebhook: (url, parameter) => netGuardTarget({ allowPrivate: !policy.strict }).checkWebhook(url, parameter),
};

beforeAll(async () => {
  harness = await startSchedulerHarness();
  r = await harness.replica({ clock, authQuota: auth.port, guard });
  renders = await fakeRenders(harness.nats.nc, () => clock.ms());
});

afterAll(async () => {
  await harness?.stop();
});

// A task of a failed test must not run on in the next tests' minutes.
afterEach(async () => {
  policy.strict = false;
  for (const task of await r.list()) await r.remove(task.id);
});

/** The next minute's runs start (every task here runs every minute). */
async function nextMinute() {
  minute++;
  clock.set(Date.parse('2026-05-04T10:00:00.200Z') + minute * MINUTE);
  await r.app.tick();
  await r.app.relay.flush();
}

async function nextJob(task: Task): Promise<RenderJob> {
  let job: RenderJob | undefined;
  await until(async () => (job = (await renders.pending(task.id))[0]) !== undefined, 10_000, `a job of task ${task.id}`);
  return job!;
}

const runOf = async (task: Task, runId: string): Promise<TaskRun | undefined> => (await r.runs(task.id)).find((x) => x.run_id === runId);

/** Renders the task's next job (its run, or a confirming render) with `body`. */
async function render(task: Task, body: string | Uint8Array, type = HTML): Promise<RenderJob> {
  const job = await nextJob(task);
  await renders.render(job, body, type);
  return job;
}

/** One run: its render gets `bodies[0]`, a confirming render (if one is asked for) `bodies[1]`; its change. */
async function run(task: Task, ...bodies: (string | Uint8Array)[]): Promise<NonNullable<TaskRun['change']>> {
  await nextMinute();
  const type = typeof bodies[0] === 'string' ? HTML : PNG;
  const job = await render(task, bodies[0]!, type);
  const runId = job.run_id!;
  await until(
    async () => (await runOf(task, runId))?.change !== undefined || (await renders.pending(task.id)).length > 0,
    10_000,
    'the comparison or a confirming render',
  );
  if (!(await runOf(task, runId))?.change) await render(task, bodies[1] ?? bodies[0]!, type);
  await until(async () => (await runOf(task, runId))?.change !== undefined, 10_000, `the comparison of ${runId}`);
  return (await runOf(task, runId))!.change!;
}

async function announcedChanges(task: Task): Promise<{ msgId: string | undefined; event: TaskChangedEvent }[]> {
  await r.app.relay.flush();
  return (await streamMessages(harness.nats.nc, STREAMS.SCHEDULER.name))
    .filter((m) => m.subject === SUBJECTS.taskChanged)
    .map((m) => ({ msgId: m.msgId, event: TaskChangedEvent.decode(m.data) }))
    .filter((m) => m.event.task_id === task.id);
}

const pricingPage = (pro: string, opts: { clock?: string; banner?: string } = {}) => `<!doctype html><html><body>
  <div class="banner">${opts.banner ?? 'Welcome'}</div>
  <p class="clock">Updated at ${opts.clock ?? '10:00:00'} UTC</p>
  <table id="prices"><tr><td>Basic</td><td>$9</td></tr><tr><td>Pro</td><td>${pro}</td></tr></table>
</body></html>`;

const createTextTask = (name: string, monitor: Record<string, unknown>, webhook = true) =>
  r.create({
    name,
    api: 'scrape',
    query: `url=http://127.0.0.1:9/pricing${webhook ? `&webhook_url=${encodeURIComponent('https://hooks.example/changes')}` : ''}`,
    frequency: 'every_minute',
    files_base_url: FILES,
    monitor: { mode: 'text', ignore_selectors: [], ignore_text: [], ...monitor },
  });

describe('Change monitoring in the scheduler', () => {
  describe('When a text-monitored page changes on some runs and not on others (confirm off)', () => {
    it('should record baseline, then changed exactly on the runs where the page changed, each announced once', async () => {
      const task = await createTextTask('Pricing', { confirm: false });
      expect(task.monitor).toMatchObject({ mode: 'text', threshold: 1, confirm: false });
      const prices = ['$29', '$29', '$39', '$39', '$39', '$49'];
      const changes = [];
      for (const price of prices) changes.push(await run(task, pricingPage(price)));
      expect(changes.map((c) => c.status)).toEqual(['baseline', 'unchanged', 'changed', 'unchanged', 'unchanged', 'changed']);

      const third = changes[2]!;
      expect(third.summary).toBe('1 line added, 1 line removed; first change: "- $29"');
      const diff = new TextDecoder().decode((await renders.read(third.diff!))!);
      expect(diff).toContain('-$29');
      expect(diff).toContain('+$39');
      // before and after are the compared texts, kept as files.
      expect(new TextDecoder().decode((await renders.read(third.before!))!)).toContain('Pro\n$29');
      expect(new TextDecoder().decode((await renders.read(third.after!))!)).toContain('Pro\n$39');

      const announced = await announcedChanges(task);
      expect(announced).toHaveLength(2);
      expect(new Set(announced.map((a) => a.msgId)).size).toBe(2);
      expect(announced[0]!.event).toMatchObject({
        account_id: 'acc_test',
        webhook_url: 'https://hooks.example/changes',
        webhook_signed: true,
        summary: third.summary,
        diff: `${FILES}${third.diff}`,
        before: `${FILES}${third.before}`,
        after: `${FILES}${third.after}`,
      });
      // GET /changes: only the runs that changed, newest first.
      const listed = await r.changes(task.id);
      expect(listed.map((x) => x.change!.status)).toEqual(['changed', 'changed']);
      expect(listed[0]!.change!.summary).toContain('$39');
      await r.remove(task.id);
    });
  });

  describe('When the page has a rotating banner and a clock', () => {
    const noisy = (i: number) => pricingPage('$29', { banner: `Offer ${i}`, clock: `10:${String(i).padStart(2, '0')}:00` });

    it('should find no change over 10 runs with the banner ignored and the clock stripped', async () => {
      const task = await createTextTask('Noise ignored', { ignore_selectors: ['.banner'], ignore_text: ['\\d{2}:\\d{2}:\\d{2}'], confirm: false });
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await run(task, noisy(i))).status);
      expect(statuses).toEqual(['baseline', ...Array(9).fill('unchanged')]);
      expect(await announcedChanges(task)).toEqual([]);
      await r.remove(task.id);
    });

    it('should find a change on every run without those settings', async () => {
      const task = await createTextTask('Noise seen', { confirm: false });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await run(task, noisy(i))).status);
      expect(statuses).toEqual(['baseline', 'changed', 'changed']);
      expect(await announcedChanges(task)).toHaveLength(2);
      await r.remove(task.id);
    });
  });

  describe('When confirm is on and a change is gone on the second render', () => {
    it('should render once more (admitted like a run), count nothing, and count a change that stays', async () => {
      const task = await createTextTask('Confirmed', {});
      expect(task.monitor?.confirm).toBe(true);
      expect((await run(task, pricingPage('$29'))).status).toBe('baseline');
      const admittedBefore = auth.admitted.length;
      // A half-loaded page: the second render shows the usual prices.
      const absorbed = await run(task, pricingPage('…'), pricingPage('$29'));
      expect(absorbed.status).toBe('unchanged');
      expect(auth.admitted.length - admittedBefore).toBe(2); // the run and its confirming render
      const kept = await run(task, pricingPage('$39'), pricingPage('$39'));
      expect(kept.status).toBe('changed');
      expect(await announcedChanges(task)).toHaveLength(1);
      await r.remove(task.id);
    });
  });

  describe('When the page is no longer allowed by the SSRF policy when a change is to be confirmed', () => {
    it('should refuse the confirming render like any run start (no job, nothing admitted) and count the change unconfirmed', async () => {
      const task = await createTextTask('Confirm refused', {});
      expect((await run(task, pricingPage('$29'))).status).toBe('baseline');
      await nextMinute();
      const job = await nextJob(task);
      const admittedBefore = auth.admitted.length;
      policy.strict = true;
      await renders.render(job, pricingPage('$39'), HTML);
      await until(async () => (await runOf(task, job.run_id!))?.change !== undefined, 10_000, 'the comparison, without a confirming render');
      expect((await runOf(task, job.run_id!))!.change).toMatchObject({ status: 'changed', summary: expect.stringContaining('$29') });
      expect(await renders.pending(task.id)).toEqual([]);
      expect(auth.admitted.length).toBe(admittedBefore);
      expect(await announcedChanges(task)).toHaveLength(1);
    });
  });

  describe('When a visual monitor watches a screenshot task', () => {
    const screenshot = async (colour: string) =>
      sharp({ create: { width: 320, height: 200, channels: 4, background: '#ffffff' } })
        .composite([{ input: { create: { width: 40, height: 30, channels: 4, background: colour } }, left: 200, top: 120 }])
        .png()
        .toBuffer();

    it('should hide the ignored elements in its jobs, and box the changed element in a diff PNG', async () => {
      const task = await r.create({
        name: 'Visual',
        api: 'screenshot',
        query: 'url=http://127.0.0.1:9/shop&format=png',
        frequency: 'every_minute',
        files_base_url: FILES,
        monitor: { mode: 'visual', ignore_selectors: ['.ad', '#clock'], ignore_text: [], confirm: false },
      });
      expect((await run(task, await screenshot('#0000ff'))).status).toBe('baseline');
      expect((await run(task, await screenshot('#0000ff'))).status).toBe('unchanged');
      const changed = await run(task, await screenshot('#ff8800'));
      expect(changed).toMatchObject({ status: 'changed', boxes: [{ x: 200, y: 120, width: 40, height: 30 }] });
      expect(changed.score).toBeCloseTo(((40 * 30) / (320 * 200)) * 100, 2);
      const diff = await sharp(Buffer.from((await renders.read(changed.diff!))!)).metadata();
      expect([diff.format, diff.width, diff.height]).toEqual(['png', 320, 200]);
      await r.remove(task.id);
    });

    it('should carry the monitor in the render jobs as hide_selectors', async () => {
      const task = await r.create({
        name: 'Visual jobs',
        api: 'screenshot',
        query: 'url=http://127.0.0.1:9/shop&format=png&hide_selectors=.cookie',
        frequency: 'every_minute',
        files_base_url: FILES,
        monitor: { mode: 'visual', selector: '#prices', ignore_selectors: ['.ad'], ignore_text: [], confirm: false },
      });
      await nextMinute();
      const job = await nextJob(task);
      expect(job.params!.hide_selectors).toEqual(['.cookie', '.ad', 'body *:not(:is(#prices), :is(#prices) *, :has(:is(#prices)))']);
      await r.remove(task.id);
    });
  });
});
