import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer-core';
import {
  httpsRequest,
  imageInfo,
  openDashboardView,
  shootDashboard,
  shown,
  startDashboardBrowser,
  startFixtureServer,
  until,
  type DashboardBrowser,
  type FixtureServer,
  type TestAccount,
  type TestStack,
} from '@app/testkit';

// The account dashboard's tasks in a real browser (Debian's Chromium) against the whole stack as `npm start`
// runs it: the API's validation messages beside the task form's fields, a task that runs every minute made
// from the form, its history growing (on its schedule and with Run now), disabled, run now all the same and
// deleted. Screenshots at 375 px and 1280 px go to the same folder as dashboard.e2e.spec.ts's.
const SHOTS = join(tmpdir(), 'dashboard-screenshots');

let dashboard: DashboardBrowser;
let stack: TestStack;
let fixture: FixtureServer;
let owner: TestAccount;
let page: Page;
let base: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  fixture = await startFixtureServer({
    '/dash-task': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Task</title><h1 style="color:#2450c7">Dashboard task</h1>'),
  });
  dashboard = await startDashboardBrowser({ owner: 'Dashboard tasks owner' });
  ({ stack, owner, page, base } = dashboard);
}, 180_000);

afterAll(async () => {
  await dashboard?.stop();
  await fixture?.close();
});

const call = (method: string, path: string, o: { headers?: Record<string, string>; json?: unknown } = {}) => stack.call(method, path, o);
const withKey = (accessKey: string) => ({ 'x-access-key': accessKey });
const textOf = (selector: string) => page.$eval(selector, (el) => el.textContent ?? '');
/** Polls gently (the account's rate limit counts every API call the test makes). */
const poll = (check: () => Promise<boolean>, timeoutMs: number, what: string) => until(check, timeoutMs, what, 1_000);
const visible = (selector: string) => shown(page, selector);
const shoot = (name: string) => shootDashboard(page, SHOTS, name);
const goTo = (view: string) => openDashboardView(page, view);

describe('Account dashboard: tasks', () => {
  describe('When the owner manages a task', () => {
    let taskId: number;
    // Read through the dashboard's own API (the page's session), which costs no rate limit.
    const runsOf = async () => {
      const { tasks } = await page.evaluate(async () => (await fetch('/dashboard/api/tasks')).json() as Promise<{ tasks: { id: number; runs: number; enabled: boolean }[] }>);
      return tasks.find((t) => t.id === taskId) ?? { runs: -1, enabled: undefined };
    };
    const historyRows = async () => {
      await page.click(`tr[data-task-id="${taskId}"] .row-actions button`);
      await visible('#task-runs');
      return page.$$eval('#task-runs-body tr', (rows) =>
        rows.map((r) => ({ trigger: r.getAttribute('data-trigger'), outcome: r.querySelector('.status')?.textContent, link: r.querySelector('a')?.getAttribute('href') ?? null })),
      );
    };

    it('should show the API validation messages beside the fields', async () => {
      await goTo('tasks');
      await page.type('#task-query', 'format=png');
      await page.$eval('#task-timezone', (el) => ((el as HTMLInputElement).value = 'Mars/Olympus'));
      await page.click('#task-form button[type="submit"]');
      await page.waitForFunction(() => (document.getElementById('task-name-error')?.textContent ?? '').length > 0);
      const api = (
        await call('POST', '/v1/tasks', { headers: withKey(owner.accessKey), json: { name: '', api: 'screenshot', query: 'format=png', frequency: 'every_day', timezone: 'Mars/Olympus', enabled: true } })
      ).json<{ details: { parameter: string; message: string }[] }>();
      const message = (p: string) => api.details.filter((d) => d.parameter === p).map((d) => d.message).join(' ');
      expect(await textOf('#task-name-error')).toBe(message('name'));
      expect(await textOf('#task-timezone-error')).toBe(message('timezone'));
      expect(await textOf('#task-query-error')).toBe(api.details.filter((d) => d.parameter.startsWith('query')).map((d) => d.message).join(' '));
      await shoot('tasks-invalid');
    });

    it('should create an every_minute task and show it run on its schedule and when asked, its history growing with results', async () => {
      await page.$eval('#task-query', (el) => ((el as HTMLInputElement).value = ''));
      await page.$eval('#task-timezone', (el) => ((el as HTMLInputElement).value = 'Etc/UTC'));
      await page.type('#task-name', 'Dashboard fixture');
      await page.type('#task-query', `url=${encodeURIComponent(`${fixture.origin}/dash-task`)}&format=png`);
      await page.select('#task-frequency', 'every_minute');
      await page.click('#task-form button[type="submit"]');
      await page.waitForSelector('#tasks-table tr[data-task-id]', { timeout: 30_000 });
      taskId = Number(await page.$eval('#tasks-table tr[data-task-id]', (r) => r.getAttribute('data-task-id')));
      expect(await page.$eval('#task-name-error', (el) => el.textContent)).toBe('');

      await poll(async () => (await runsOf()).runs >= 1, 80_000, 'the first run');
      await poll(async () => (await historyRows()).some((r) => r.outcome === 'succeeded'), 40_000, 'a succeeded run in the history');
      const first = await historyRows();
      expect(first.map((r) => r.trigger)).toContain('schedule');
      // The second run is asked for with the row's Run now button rather than waited for a minute.
      await page.click(`tr[data-task-id="${taskId}"] button[aria-label$=" now"]`);
      await poll(async () => (await runsOf()).runs >= 2, 80_000, 'the second run');
      await poll(async () => (await historyRows()).filter((r) => r.outcome === 'succeeded').length >= 2, 40_000, 'the history growing');
      const grown = await historyRows();
      expect(grown.length).toBeGreaterThan(first.length);
      expect(fixture.hits('/dash-task')).toBeGreaterThanOrEqual(2);
      const result = await httpsRequest(grown.find((r) => r.link)!.link!.replace(base, `https://127.0.0.1:${stack.port}`), { ca: stack.certPem, servername: 'localhost' });
      expect(result.status).toBe(200);
      expect(await imageInfo(result.body)).toMatchObject({ format: 'png' });
      await goTo('overview');
      await goTo('tasks');
      await page.waitForFunction((id) => Number(document.querySelector(`tr[data-task-id="${id}"] .runs`)?.textContent) >= 2, {}, taskId);
      await historyRows();
      await shoot('tasks');
    }, 240_000);

    it('should disable it, run it once now all the same, then delete it', async () => {
      await page.click(`tr[data-task-id="${taskId}"] input[role="switch"]`);
      await poll(async () => (await runsOf()).enabled === false, 10_000, 'the task disabled');
      expect((await call('GET', `/v1/tasks/${taskId}`, { headers: withKey(owner.accessKey) })).json()).toMatchObject({ enabled: false });

      const hits = fixture.hits('/dash-task');
      const manual = async () => (await historyRows()).filter((r) => r.trigger === 'manual' && r.outcome === 'succeeded').length;
      const manualBefore = await manual();
      await page.click(`tr[data-task-id="${taskId}"] button[aria-label$=" now"]`);
      await poll(async () => (await manual()) > manualBefore, 40_000, 'the run asked for now, succeeded');
      expect(fixture.hits('/dash-task')).toBeGreaterThan(hits);

      page.once('dialog', (d) => void d.accept());
      await page.click(`tr[data-task-id="${taskId}"] button[aria-label^="Delete"]`);
      await page.waitForFunction((id) => !document.querySelector(`tr[data-task-id="${id}"]`), {}, taskId);
      expect((await call('GET', `/v1/tasks/${taskId}`, { headers: withKey(owner.accessKey) })).status).toBe(404);
    });
  });
});
