import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'puppeteer-core';
import { settleWithin } from './settle-within.js';

/** A page in its own fresh BrowserContext: no cookies, storage, cache or permissions shared with any other. */
export interface IsolatedPage {
  readonly context: BrowserContext;
  readonly page: Page;
}

export async function openIsolatedPage(browser: Browser, options?: BrowserContextOptions): Promise<IsolatedPage> {
  const context = await browser.createBrowserContext(options);
  try {
    return { context, page: await context.newPage() };
  } catch (err) {
    await context.close().catch(() => undefined);
    throw err;
  }
}

/** Closes the context (and every page or popup in it). False when it did not finish within graceMs. */
export function closeIsolatedPage(isolated: IsolatedPage, graceMs: number): Promise<boolean> {
  return settleWithin(isolated.context.close(), graceMs);
}
