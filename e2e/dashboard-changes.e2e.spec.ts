import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { launchTestBrowser, startFixtureServer, startTestStack, until, type FixtureServer, type TestStack } from '@app/testkit';

// A monitoring task set up in the dashboard's new-task form, and its change shown with before, after and
// the difference side by side, in Debian's Chromium at 375 px and 1280 px (screenshots under the OS temp dir).

const SHOTS = join(tmpdir(), 'dashboard-screenshots');
let stack: TestStack;
let fixture: FixtureServer;
let browser: Browser;
let page: Page;
let loads = 0;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  fixture = await startFixtureServer({
    // Another colour on every load: every run after the first is a change.
    '/changing': (_req, res) => {
      const colour = ['#2450c7', '#c72450', '#24c750'][loads++ % 3];
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Changing</title><h1 style="color:${colour}">Price list</h1><div style="width:300px;height:120px;background:${colour}"></div>`);
    },
  });
  stack = await startTestStack({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
  browser = await launchTestBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await fixture?.close();
});

const visible = (selector: string) => page.waitForSelector(selector, { visible: true, timeout: 30_000 });
const boxesOf = (selector: string) =>
  page.$$eval(selector, (els) => els.map((el) => { const r = el.getBoundingClientRect(); return { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width) }; }));

describe('Dashboard: change monitoring', () => {
  let taskId: number;

  it('should set up a monitor from the new-task form', async () => {
    await page.goto(`https://localhost:${stack.port}/dashboard/`, { waitUntil: 'networkidle0' });
    await page.type('#access-key', stack.demo.accessKey);
    await page.type('#secret-key', stack.demo.secretKey);
    await page.click('#sign-in-form button[type="submit"]');
    await page.waitForSelector('#sign-in-form', { hidden: true, timeout: 30_000 });
    await page.evaluate(() => (location.hash = 'tasks'));
    await visible('#view-tasks');
    expect(await page.$eval('#task-monitor-fields', (el) => (el as HTMLElement).hidden)).toBe(true);
    await page.type('#task-name', 'Watched page');
    await page.type('#task-query', `url=${encodeURIComponent(`${fixture.origin}/changing`)}&format=png`);
    await page.select('#task-frequency', 'every_day'); // its runs are asked for with Run now below
    await page.click('#task-monitor-on');
    await visible('#task-monitor-fields');
    await page.type('#task-monitor-ignore_selectors', '.ad, #clock');
    await page.click('#task-monitor-confirm');
    await page.click('#task-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#tasks-table tr[data-task-id]') || document.getElementById('task-form-error')?.textContent, { timeout: 30_000 });
    expect(await page.$eval('#task-form-error', (el) => el.textContent)).toBe('');
    taskId = Number(await page.$eval('#tasks-table tr[data-task-id]', (r) => r.getAttribute('data-task-id')));
    const task = (await stack.call('GET', `/v1/tasks/${taskId}`, { headers: { 'x-access-key': stack.demo.accessKey } })).json();
    expect(task).toMatchObject({ monitor: { mode: 'visual', confirm: false, ignore_selectors: ['.ad', '#clock'], threshold: 0.1 } });
  });

  it('should show a change with before, after and the difference side by side, stacked on a phone', async () => {
    const changes = async () =>
      page.evaluate(async (id) => ((await (await fetch(`/dashboard/api/tasks/${id}/changes`)).json()) as { changes: unknown[] }).changes.length, taskId);
    const compared = async () =>
      page.evaluate(async (id) => ((await (await fetch(`/dashboard/api/tasks/${id}/runs`)).json()) as { runs: { change: unknown }[] }).runs.filter((r) => r.change).length, taskId);
    // Two runs asked for with the row's Run now button: a baseline, then a page in another colour.
    for (const n of [1, 2]) {
      await page.click(`tr[data-task-id="${taskId}"] button[aria-label$=" now"]`);
      await until(async () => (await compared()) >= n || (await new Promise((r) => setTimeout(r, 1_000)), false), 90_000, `compared run ${n}`);
    }
    await until(async () => (await changes()) >= 1 || (await new Promise((r) => setTimeout(r, 1_000)), false), 30_000, 'a change');
    await page.click(`tr[data-task-id="${taskId}"] button[aria-label^="Changes"]`);
    await visible('#task-changes li.change');
    // The three images are the files of the change, loaded.
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('#task-changes li.change .change-pane img')].every((i) => i.complete && i.naturalWidth > 0));
    const sources = await page.$$eval('#task-changes li.change:first-child .change-pane img', (imgs) => imgs.map((i) => (i as HTMLImageElement).naturalWidth));
    expect(sources).toEqual([1280, 1280, 1280]);
    expect(await page.$eval('#task-changes .change-head', (el) => el.textContent)).toMatch(/of pixels differ/);

    await page.setViewport({ width: 1280, height: 900 });
    const wide = await boxesOf('#task-changes li.change:first-child .change-pane');
    expect(new Set(wide.map((b) => b.y)).size).toBe(1); // one row
    expect(wide[0]!.x).toBeLessThan(wide[1]!.x);
    await page.screenshot({ path: join(SHOTS, 'task-changes-1280.png'), fullPage: true });

    await page.setViewport({ width: 375, height: 812 });
    await new Promise((r) => setTimeout(r, 200));
    const narrow = await boxesOf('#task-changes li.change:first-child .change-pane');
    expect(narrow[0]!.y).toBeLessThan(narrow[1]!.y);
    expect(narrow[1]!.y).toBeLessThan(narrow[2]!.y);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: join(SHOTS, 'task-changes-375.png'), fullPage: true });

    // The slider reveals the after image from the left.
    await page.$eval('#task-changes li.change:first-child .swipe input', (el) => {
      (el as HTMLInputElement).value = '20';
      el.dispatchEvent(new Event('input'));
    });
    expect(await page.$eval('#task-changes li.change:first-child .swipe-after', (el) => (el as HTMLElement).style.clipPath)).toBe('inset(0px 80% 0px 0px)');
  }, 240_000);
});
