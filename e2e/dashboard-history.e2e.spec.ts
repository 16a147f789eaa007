import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import {
  launchTestBrowser,
  startFixtureServer,
  startTestStack,
  startWebhookReceiver,
  until,
  type FixtureServer,
  type TestStack,
  type WebhookReceiver,
} from '@app/testkit';
import type { TaskRunResource } from '@app/task-resources';

// A monitor's page in the dashboard, in Debian's Chromium at 1280 px and 375 px (screenshots under the OS
// temp dir): the notifications' link (#tasks/<id>) opens the task; its compared runs, any two of them
// compared (summary and diff); its Slack deliveries with their attempts (the receiver refuses the first);
// and its failing state once the page has answered 503 twice in a row.

const SHOTS = join(tmpdir(), 'dashboard-screenshots');
let stack: TestStack;
let fixture: FixtureServer;
let slack: WebhookReceiver;
let browser: Browser;
let page: Page;
let state: 'A' | 'B' | '503' = 'A';

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  fixture = await startFixtureServer({
    '/plans': (_req, res) => {
      if (state === '503') return void res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>Service Unavailable</h1>');
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body><h1>Plans</h1><p>Basic $9</p><p>Pro ${state === 'A' ? '$29' : '$39'}</p></body></html>`);
    },
  });
  // Slack's incoming webhook, refusing the first message it gets once (it is tried again).
  slack = await startWebhookReceiver({ secret: () => '', answer: (n) => ({ status: n === 1 ? 500 : 200 }) });
  stack = await startTestStack({ env: { ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s' } });
  browser = await launchTestBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await Promise.all([fixture?.close(), slack?.close()]);
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const visible = (selector: string) => page.waitForSelector(selector, { visible: true, timeout: 30_000 });
const runsOf = async (id: number): Promise<TaskRunResource[]> => (await stack.call('GET', `/v1/tasks/${id}/runs`, { headers: key() })).json<{ runs: TaskRunResource[] }>().runs;

describe('Dashboard: a monitor\'s history, notifications and failing state', () => {
  let taskId: number;
  const ids: string[] = [];

  it('should record runs A, B, A, then two failed ones (asked for now through the API)', async () => {
    const created = await stack.call('POST', '/v1/tasks', {
      headers: key(),
      json: {
        name: 'Plans watched',
        api: 'scrape',
        query: `url=${encodeURIComponent(`${fixture.origin}/plans`)}`,
        frequency: 'every_day',
        enabled: false,
        monitor: { mode: 'text', confirm: false, alert_after_failures: 2, notify: [{ type: 'slack', url: `${slack.url}/slack` }] },
      },
    });
    expect(created.status, created.body.toString()).toBe(201);
    taskId = created.json<{ id: number }>().id;
    for (const shown of ['A', 'B', 'A', '503', '503'] as const) {
      state = shown;
      const asked = await stack.call('POST', `/v1/tasks/${taskId}/runs`, { headers: key() });
      expect(asked.status, asked.body.toString()).toBe(202);
      const id = asked.json<{ id: string }>().id;
      ids.push(id);
      await until(
        async () => {
          const run = (await runsOf(taskId)).find((r) => r.id === id);
          return run !== undefined && (run.change != null || run.status === 'failed');
        },
        90_000,
        `run ${ids.length} finished`,
        1_000,
      );
    }
    // Two changes and the failing episode reach Slack (the first attempt of the first refused).
    await until(async () => slack.accepted().length >= 3, 60_000, 'three Slack messages accepted');
    expect(slack.received[0]!.status).toBe(500);
  }, 400_000);

  it('should open the task from the notifications\' link, with its failing state', async () => {
    await page.goto(`https://localhost:${stack.port}/dashboard/`, { waitUntil: 'networkidle0' });
    await page.type('#access-key', stack.demo.accessKey);
    await page.type('#secret-key', stack.demo.secretKey);
    await page.click('#sign-in-form button[type="submit"]');
    await page.waitForSelector('#sign-in-form', { hidden: true, timeout: 30_000 });
    // The link a Slack message or an email carries.
    await page.goto(`https://localhost:${stack.port}/dashboard#tasks/${taskId}`, { waitUntil: 'networkidle0' });
    await visible('#task-runs');
    expect(await page.$eval('#view-tasks', (el) => (el as HTMLElement).hidden)).toBe(false);
    expect(await page.$eval('#task-runs-title', (el) => el.textContent)).toContain('Plans watched');
    await visible('#task-failing');
    expect(await page.$eval('#task-failing', (el) => el.textContent)).toMatch(/Failing: the last 2 runs failed.*503/);
  });

  it('should compare any two kept runs: the first and third unchanged, the first and second changed with the diff', async () => {
    await visible('#task-compare');
    const points = await page.$$eval('#task-timeline-list li', (lis) => lis.map((li) => li.getAttribute('data-run-id')));
    expect(points).toEqual([...ids].reverse());
    await page.select('#task-compare-from', ids[0]!);
    await page.select('#task-compare-to', ids[2]!);
    await page.click('#task-compare button[type="submit"]');
    await page.waitForFunction(() => !document.getElementById('task-compare-result')!.hidden && document.querySelector('#task-compare-result .status')?.textContent === 'unchanged', { timeout: 30_000 });
    expect(await page.$eval('#task-compare-result', (el) => el.textContent)).toContain('No difference');

    await page.select('#task-compare-to', ids[1]!);
    await page.click('#task-compare button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#task-compare-result .status')?.textContent === 'changed', { timeout: 30_000 });
    expect(await page.$eval('#task-compare-result .change-head', (el) => el.textContent)).toMatch(/changed .*line/);
    // The diff shown is the file's, and it says what changed.
    const diff = await page.$eval('#task-compare-result iframe', async (frame) => (await fetch((frame as HTMLIFrameElement).src)).text());
    expect(diff.split('\n')).toEqual(expect.arrayContaining(['-Pro $29', '+Pro $39']));
  });

  it('should list the Slack deliveries with their attempts', async () => {
    const row = `#task-deliveries-body tr[data-delivery="change-${ids[1]}:slack"]`;
    await page.waitForSelector(row, { timeout: 30_000 });
    expect(await page.$eval(row, (el) => el.textContent)).toMatch(/changed.*slack.*delivered 2 attempts/);
    const failing = await page.$eval(`#task-deliveries-body tr[data-delivery="failing-${ids[4]}:slack"]`, (el) => el.textContent);
    expect(failing).toMatch(/failing.*delivered 1 attempt\b/);
  });

  it('should fit a phone (375 px) and a desktop (1280 px)', async () => {
    await page.screenshot({ path: join(SHOTS, 'task-history-1280.png'), fullPage: true });
    const wide = await page.$$eval('#task-compare .field', (els) => els.map((el) => Math.round(el.getBoundingClientRect().bottom)));
    expect(new Set(wide).size).toBe(1); // From, To and the button on one line
    await page.setViewport({ width: 375, height: 812 });
    await new Promise((r) => setTimeout(r, 200));
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const narrow = await page.$$eval('#task-compare .field', (els) => els.map((el) => Math.round(el.getBoundingClientRect().bottom)));
    expect(narrow[0]!).toBeLessThan(narrow[1]!); // stacked
    for (const selector of ['#task-failing', '#task-compare-result', '#task-deliveries-body']) {
      const right = await page.$eval(selector, (el) => el.getBoundingClientRect().right);
      expect(right, selector).toBeLessThanOrEqual(375);
    }
    // Nothing in the deliveries is cut off (no cell wider than its table's frame).
    const overflow = await page.$eval('#task-deliveries-body', (body) => {
      const frame = body.closest('.table-wrap')!;
      return { scroll: frame.scrollWidth, client: frame.clientWidth };
    });
    expect(overflow.scroll).toBeLessThanOrEqual(overflow.client);
    await page.screenshot({ path: join(SHOTS, 'task-history-375.png'), fullPage: true });
  });
});
