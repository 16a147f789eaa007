import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer-core';
import {
  signInSteps,
  startDashboardBrowser,
  startFixtureServer,
  startSignInSite,
  until,
  type DashboardBrowser,
  type FixtureServer,
  type SignInSite,
  type TestAccount,
  type TestStack,
} from '@app/testkit';
import type { TaskResource, TaskRunResource } from '@app/task-resources';

// The dashboard's step editor in a real browser (Debian's Chromium) against the whole stack: the owner
// adds, edits, moves and removes browser steps in the playground; the render shows their effect (an
// element whose width grows with the text typed into a form field), at 375 px without sideways scrolling.
// Then in the task form: a task whose steps sign in to a fixture site (the password typed from an account
// secret) with keep_session, made from the form, signs in on its first run and not on its second (the
// site counts the sign-in forms posted), reads back over the API with those steps and keep_session, and
// shows them again when opened for editing.

let dashboard: DashboardBrowser;
let stack: TestStack;
let fixture: FixtureServer;
let owner: TestAccount;
let page: Page;

/** #out is 50 px wide per character typed into #name. */
const FORM_PAGE = `<title>Form</title><style>body{margin:0} #out{display:block;height:40px;width:0;background:#2450c7}</style>
<input id="name"><div id="out"></div>
<script>document.getElementById('name').addEventListener('input', (e) => { document.getElementById('out').style.width = (e.target.value.length * 50) + 'px'; });</script>`;

beforeAll(async () => {
  fixture = await startFixtureServer({ '/form': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(FORM_PAGE) });
  dashboard = await startDashboardBrowser({ owner: 'Steps owner', signIn: false });
  ({ stack, owner, page } = dashboard);
}, 180_000);

afterAll(async () => {
  await dashboard?.stop();
  await fixture?.close();
});

const visible = (selector: string) => page.waitForSelector(selector, { visible: true, timeout: 30_000 });
const overflows = () => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

describe('The playground step editor', () => {
  it('should sign in and open the playground', async () => {
    await page.goto(`https://localhost:${stack.port}/dashboard`, { waitUntil: 'domcontentloaded' });
    await visible('#sign-in-form');
    await page.type('#access-key', owner.accessKey);
    await page.type('#secret-key', owner.secretKey);
    await page.click('#sign-in-form button[type="submit"]');
    await visible('#view-overview');
    await page.evaluate(() => (location.hash = 'playground'));
    await visible('#view-playground');
  });

  it('should add, edit, move and remove steps, and the render shows what they typed', async () => {
    await page.type('#pg-url', `${fixture.origin}/form`);
    await page.select('#pg-format', 'png');
    await page.type('#pg-selector', '#out');
    // What was typed stayed where it was typed (the app once took the focus away when its first view loaded).
    expect(await page.$eval('#pg-url', (i) => (i as HTMLInputElement).value)).toBe(`${fixture.origin}/form`);
    // Step 1: wait 100 ms.
    await page.click('#pg-step-add');
    await page.select('#pg-step-0-action', 'wait');
    await page.type('#pg-step-0-ms', '100');
    // Step 2: type "hello" into #name.
    await page.click('#pg-step-add');
    await page.select('#pg-step-1-action', 'type');
    await page.type('#pg-step-1-selector', '#name');
    await page.type('#pg-step-1-text', 'hello');
    // Step 3: an optional click on an element the page lacks (skipped).
    await page.click('#pg-step-add');
    await page.type('#pg-step-2-selector', '#missing');
    await page.click('#pg-step-2-optional');
    // The typing moves first; the wait goes.
    await page.click('#pg-step-1-up');
    expect(await page.$eval('#pg-step-0-action', (s) => (s as HTMLSelectElement).value)).toBe('type');
    expect(await page.$eval('#pg-step-1-action', (s) => (s as HTMLSelectElement).value)).toBe('wait');
    await page.click('#pg-step-1-remove');
    expect(await page.$$eval('#pg-step-list > li', (rows) => rows.length)).toBe(2);
    expect(await page.$eval('#pg-step-0-text', (i) => (i as HTMLInputElement).value)).toBe('hello');

    await page.click('#pg-render');
    await page.waitForFunction(
      () => {
        const img = document.getElementById('pg-image') as HTMLImageElement | null;
        return (img !== null && img.naturalWidth > 0) || (document.getElementById('pg-error')?.textContent ?? '') !== '';
      },
      { timeout: 90_000 },
    );
    // Every problem the page shows, the ones placed beside a field included (so a failure says which).
    const problems = await page.$$eval('[id^="pg-"][id$="-error"]', (els) => els.map((e) => (e.textContent ? `${e.id}: ${e.textContent}` : '')).join(' '));
    expect(problems.trim()).toBe('');
    // "hello" typed: #out is 5 × 50 px wide.
    expect(await page.$eval('#pg-image', (img) => [(img as HTMLImageElement).naturalWidth, (img as HTMLImageElement).naturalHeight])).toEqual([250, 40]);
  }, 150_000);

  it('should name the step at fault beside the steps when one is wrong', async () => {
    await page.$eval('#pg-step-0-selector', (i) => ((i as HTMLInputElement).value = ''));
    await page.type('#pg-step-0-selector', '#nowhere');
    await page.click('#pg-render');
    await page.waitForFunction(() => (document.getElementById('pg-steps-error')?.textContent ?? '') !== '', { timeout: 60_000 });
    expect(await page.$eval('#pg-error', (e) => e.textContent ?? '')).toBeTruthy();
  }, 90_000);

  it('should fit a 375 px screen without scrolling sideways, and a 1280 px one', async () => {
    for (const width of [375, 1280]) {
      await page.setViewport({ width, height: 812 });
      await new Promise((r) => setTimeout(r, 200));
      expect(await overflows(), `${width} px`).toBe(false);
      const row = await page.$eval('#pg-step-0-row', (el) => el.getBoundingClientRect().right);
      expect(row).toBeLessThanOrEqual(width);
    }
  });
});

describe('The task form: steps and keep_session', () => {
  const SECRET_NAME = 'shop.password';
  const PASSWORD = `pw-${Math.random().toString(36).slice(2)}-Zq8`;
  let site: SignInSite;
  let taskId: number;

  const ownerCall = (method: string, path: string, json?: unknown) =>
    stack.call(method, path, { headers: { 'x-access-key': owner.accessKey }, ...(json === undefined ? {} : { json }) });
  const taskOverApi = async () => (await ownerCall('GET', `/v1/tasks/${taskId}`)).json<TaskResource>();
  const stepsOf = (task: TaskResource) => JSON.parse(new URLSearchParams(task.query).get('steps') ?? '[]') as unknown;
  const runsOf = async () => (await ownerCall('GET', `/v1/tasks/${taskId}/runs`)).json<{ runs: TaskRunResource[] }>().runs;

  /** The run now of the task, started from its row's button; answers the finished run. */
  const runFromTheRow = async (): Promise<TaskRunResource> => {
    const before = (await runsOf()).length;
    await page.click(`#tasks-table tr[data-task-id="${taskId}"] button[aria-label^="Run "]`);
    await until(async () => {
      const runs = await runsOf();
      return runs.length > before && runs[0]!.status !== 'running';
    }, 120_000, 'the run', 500);
    return (await runsOf())[0]!;
  };

  beforeAll(async () => {
    site = await startSignInSite({ user: 'ann', password: PASSWORD, sessionMs: 600_000 });
    const made = await ownerCall('POST', '/v1/secrets', { name: SECRET_NAME, value: PASSWORD });
    expect(made.status, made.body.toString()).toBe(201);
  });
  afterAll(() => site?.close());

  it('should create a task with sign-in steps and keep_session from the form', async () => {
    await page.setViewport({ width: 1280, height: 900 });
    await page.evaluate(() => (location.hash = 'tasks'));
    await visible('#task-form');
    await page.type('#task-name', 'Balance behind a sign-in');
    await page.select('#task-api', 'scrape');
    await page.type('#task-query', `url=${encodeURIComponent(`${site.origin}/login`)}&format=html`);
    await page.select('#task-frequency', 'every_month');
    await page.click('#task-enabled'); // off: runs only when asked for
    for (const [i, step] of signInSteps(site, 'ann', SECRET_NAME).entries()) {
      await page.click('#task-step-add');
      await page.select(`#task-step-${i}-action`, step.action);
      for (const field of ['url', 'selector', 'text', 'secret'] as const) {
        const value = (step as Record<string, unknown>)[field];
        if (typeof value === 'string') await page.type(`#task-step-${i}-${field}`, value);
      }
      if ((step as { optional?: boolean }).optional) await page.click(`#task-step-${i}-optional`);
    }
    await page.click('#task-keep_session');
    await page.click('#task-submit');
    await page.waitForFunction(() => document.querySelector('#tasks-table tr[data-task-id]') || document.getElementById('task-form-error')?.textContent, { timeout: 30_000 });
    const problems = await page.$$eval('[id^="task-"][id$="-error"]', (els) => els.map((e) => (e.textContent ? `${e.id}: ${e.textContent}` : '')).join(' '));
    expect(problems.trim()).toBe('');
    taskId = Number(await page.$eval('#tasks-table tr[data-task-id]', (tr) => tr.getAttribute('data-task-id')));
    // The form is a new task's again, its steps gone.
    expect(await page.$$eval('#task-step-list > li', (rows) => rows.length)).toBe(0);
    expect(await page.$eval('#task-keep_session', (i) => (i as HTMLInputElement).checked)).toBe(false);
  }, 120_000);

  it('should read back over the API with the steps and keep_session', async () => {
    const task = await taskOverApi();
    expect(task).toMatchObject({ name: 'Balance behind a sign-in', api: 'scrape', keep_session: true, enabled: false });
    expect(stepsOf(task)).toEqual(signInSteps(site, 'ann', SECRET_NAME));
    expect(new URLSearchParams(task.query).get('url')).toBe(`${site.origin}/login`);
    expect(task.query).not.toContain(PASSWORD);
  });

  it('should sign in on its first run (the password typed from the secret) and not on its second (the session kept)', async () => {
    const before = site.signIns();
    const first = await runFromTheRow();
    expect(first, JSON.stringify(first)).toMatchObject({ status: 'succeeded', error: null });
    expect(site.signIns() - before).toBe(1);
    expect(site.passwordsReceived().at(-1)).toBe(PASSWORD);
    const firstPage = await stack.call('GET', new URL(first.file!).pathname);
    expect(firstPage.body.toString()).toContain('Balance: 100 EUR');

    const second = await runFromTheRow();
    expect(second, JSON.stringify(second)).toMatchObject({ status: 'succeeded', error: null });
    expect(site.signIns() - before).toBe(1);
    const secondPage = await stack.call('GET', new URL(second.file!).pathname);
    expect(secondPage.body.toString()).toContain('Balance: 100 EUR');
  }, 300_000);

  it('should show the steps and keep_session when the task is opened for editing, and save a change', async () => {
    await page.click(`#tasks-table tr[data-task-id="${taskId}"] button[aria-label^="Edit "]`);
    await page.waitForFunction(() => document.getElementById('task-form-title')?.textContent?.startsWith('Edit'), { timeout: 10_000 });
    const shown = await page.$$eval('#task-step-list > li', (rows) =>
      rows.map((row) => {
        const step: Record<string, unknown> = {};
        for (const el of row.querySelectorAll<HTMLInputElement | HTMLSelectElement>('select, input')) {
          const field = el.id.replace(/^task-step-\d+-/, '');
          if (field === 'optional') {
            if ((el as HTMLInputElement).checked) step.optional = true;
          } else if (el.value !== '') step[field] = el.value;
        }
        return step;
      }),
    );
    expect(shown).toEqual(signInSteps(site, 'ann', SECRET_NAME));
    expect(await page.$eval('#task-keep_session', (i) => (i as HTMLInputElement).checked)).toBe(true);
    expect(await page.$eval('#task-query', (i) => (i as HTMLInputElement).value)).toBe(`url=${encodeURIComponent(`${site.origin}/login`)}&format=html`);
    expect(await page.$eval('#task-name', (i) => (i as HTMLInputElement).value)).toBe('Balance behind a sign-in');
    // Nothing of the secret's value reaches the page.
    expect(await page.content()).not.toContain(PASSWORD);

    // The last step goes (moved up first, then removed), keep_session off, watched for changes of the
    // balance: saved over the API.
    expect(await page.$eval('#task-monitor-on', (i) => (i as HTMLInputElement).checked)).toBe(false);
    await page.click('#task-step-6-up');
    await page.click('#task-step-5-remove');
    await page.click('#task-keep_session');
    await page.click('#task-monitor-on');
    await page.type('#task-monitor-selector', '#balance');
    await page.click('#task-submit');
    await page.waitForFunction(() => document.getElementById('task-form-title')?.textContent === 'New task' || document.getElementById('task-form-error')?.textContent, { timeout: 30_000 });
    expect(await page.$eval('#task-form-error', (e) => e.textContent)).toBe('');
    const task = await taskOverApi();
    expect(task.keep_session).toBe(false);
    expect(stepsOf(task)).toEqual(signInSteps(site, 'ann', SECRET_NAME).slice(0, 6));
    expect(task.name).toBe('Balance behind a sign-in');
    expect(task.monitor).toMatchObject({ mode: 'text', selector: '#balance' });
  }, 60_000);

  it('should fit a 375 px screen without scrolling sideways while editing the steps, and a 1280 px one', async () => {
    await page.click(`#tasks-table tr[data-task-id="${taskId}"] button[aria-label^="Edit "]`);
    await page.waitForSelector('#task-step-0-row', { visible: true, timeout: 10_000 });
    // The monitor saved is shown too.
    expect(await page.$eval('#task-monitor-on', (i) => (i as HTMLInputElement).checked)).toBe(true);
    expect(await page.$eval('#task-monitor-selector', (i) => (i as HTMLInputElement).value)).toBe('#balance');
    for (const width of [375, 1280]) {
      await page.setViewport({ width, height: 812 });
      await new Promise((r) => setTimeout(r, 200));
      expect(await overflows(), `${width} px`).toBe(false);
      for (const id of ['#task-step-1-row', '#task-keep_session', '#task-submit']) {
        const right = await page.$eval(id, (el) => el.getBoundingClientRect().right);
        expect(right, `${id} at ${width} px`).toBeLessThanOrEqual(width);
      }
    }
  });
  it("should keep the monitor's settings the form has no field for when its fields are changed", async () => {
    const patched = await ownerCall('PATCH', `/v1/tasks/${taskId}`, { monitor: { mode: 'text', selector: '#balance', keywords: ['EUR'], keep: 7 } });
    expect(patched.status, patched.body.toString()).toBe(200);
    await page.click('#task-edit-cancel');
    await page.reload({ waitUntil: 'domcontentloaded' });
    // Opened afresh: the page knows the task only as the dashboard's API answers it.
    await visible(`#tasks-table tr[data-task-id="${taskId}"] button[aria-label^="Edit "]`);
    await page.click(`#tasks-table tr[data-task-id="${taskId}"] button[aria-label^="Edit "]`);
    await page.waitForFunction(() => document.getElementById('task-form-title')?.textContent?.startsWith('Edit'), { timeout: 10_000 });
    // The threshold shown is the task's (text mode's default, 1 changed character); it becomes 5.
    expect(await page.$eval('#task-monitor-threshold', (i) => (i as HTMLInputElement).value)).toBe('1');
    await page.$eval('#task-monitor-threshold', (i) => ((i as HTMLInputElement).value = ''));
    await page.type('#task-monitor-threshold', '5');
    await page.click('#task-submit');
    await page.waitForFunction(() => document.getElementById('task-form-title')?.textContent === 'New task' || document.getElementById('task-form-error')?.textContent, { timeout: 30_000 });
    expect(await page.$eval('#task-form-error', (e) => e.textContent)).toBe('');
    const task = await taskOverApi();
    expect(task.monitor).toMatchObject({ mode: 'text', selector: '#balance', threshold: 5, keywords: ['EUR'], keep: 7 });
    expect(stepsOf(task)).toEqual(signInSteps(site, 'ann', SECRET_NAME).slice(0, 6));
  }, 60_000);
});
