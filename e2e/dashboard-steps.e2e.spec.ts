import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { accountsAdmin, launchTestBrowser, startFixtureServer, startTestStack, type FixtureServer, type TestAccount, type TestStack } from '@app/testkit';

// The dashboard's step editor in a real browser (Debian's Chromium) against the whole stack: the owner
// adds, edits, moves and removes browser steps in the playground; the render shows their effect (an
// element whose width grows with the text typed into a form field), at 375 px without sideways scrolling.

let stack: TestStack;
let fixture: FixtureServer;
let admin: ReturnType<typeof accountsAdmin>;
let owner: TestAccount;
let browser: Browser;
let page: Page;

/** #out is 50 px wide per character typed into #name. */
const FORM_PAGE = `<title>Form</title><style>body{margin:0} #out{display:block;height:40px;width:0;background:#2450c7}</style>
<input id="name"><div id="out"></div>
<script>document.getElementById('name').addEventListener('input', (e) => { document.getElementById('out').style.width = (e.target.value.length * 50) + 'px'; });</script>`;

beforeAll(async () => {
  fixture = await startFixtureServer({ '/form': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(FORM_PAGE) });
  stack = await startTestStack({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
  admin = accountsAdmin(stack.authQuotaAddress);
  owner = await admin.create('scale', 'Steps owner');
  browser = await launchTestBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  admin?.close();
  await stack?.stop();
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
