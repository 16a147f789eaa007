import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { accountsAdmin, type TestAccount } from './accounts-admin.js';
import { launchTestBrowser } from './browser.js';
import { startTestStack, type TestStack } from './test-stack.js';

// The account dashboard driven through a real browser page, as the dashboard e2e files use it.

/** Waits for an element of the page to be shown. */
export const shown = (page: Page, selector: string) => page.waitForSelector(selector, { visible: true, timeout: 30_000 });

/** Fills the sign-in form with the keys and sends it (what follows is the caller's to wait for). */
export async function submitDashboardSignIn(page: Page, accessKey: string, secretKey: string): Promise<void> {
  await page.$eval('#access-key', (el) => ((el as unknown as { value: string }).value = ''));
  await page.$eval('#secret-key', (el) => ((el as unknown as { value: string }).value = ''));
  await page.type('#access-key', accessKey);
  await page.type('#secret-key', secretKey);
  await page.click('#sign-in-form button[type="submit"]');
}

/** Opens a view by its address (`tasks` for #tasks) and waits for it to be shown. */
export async function openDashboardView(page: Page, view: string): Promise<void> {
  await page.evaluate((v) => ((globalThis as unknown as { location: { hash: string } }).location.hash = v), view);
  await shown(page, `#view-${view}`);
}

/** Full-page screenshots at 375 and 1280 px wide into `dir`, for people to look at (nothing compares them). */
export async function shootDashboard(page: Page, dir: string, name: string): Promise<void> {
  for (const width of [375, 1280]) {
    await page.setViewport({ width, height: width === 375 ? 812 : 900 });
    await new Promise((r) => setTimeout(r, 150));
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
  }
}

/** A stack, an account on it, and a browser page on its dashboard: what a dashboard e2e file starts from. */
export interface DashboardBrowser {
  stack: TestStack;
  admin: ReturnType<typeof accountsAdmin>;
  owner: TestAccount;
  browser: Browser;
  page: Page;
  /** The dashboard's origin, https://localhost:<port>. */
  base: string;
  stop(): Promise<void>;
}

/**
 * Starts the stack (pages on loopback allowed: the fixtures), creates a Scale account named `owner`, and
 * opens a 1280×900 page on the dashboard signed in as it (with `signIn: false`, on the sign-in form).
 */
export async function startDashboardBrowser(opts: { owner: string; signIn?: boolean }): Promise<DashboardBrowser> {
  const stack = await startTestStack({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
  const admin = accountsAdmin(stack.authQuotaAddress);
  const browser = await launchTestBrowser();
  const stop = async () => {
    await browser.close();
    admin.close();
    await stack.stop();
  };
  try {
    const owner = await admin.create('scale', opts.owner);
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const base = `https://localhost:${stack.port}`;
    await page.goto(`${base}/dashboard`, { waitUntil: 'domcontentloaded' });
    await shown(page, '#sign-in-form');
    if (opts.signIn !== false) {
      await submitDashboardSignIn(page, owner.accessKey, owner.secretKey);
      await shown(page, '#view-overview');
    }
    return { stack, admin, owner, browser, page, base, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
