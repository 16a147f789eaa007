/// <reference lib="dom" />
import type { Page } from 'puppeteer-core';
import { AppError, ValidationError } from '@app/errors';
import type { Countdown } from '../countdown.js';

/** How long click_selector may wait for its element to appear after the page loaded. */
const APPEAR_WITHIN_MS = 2_000;

/**
 * click_selector: clicks the first matching element (scrolled into view). A selector that matches
 * nothing is 400 selector_not_found; one that is not valid CSS is 400 invalid_parameter.
 */
export async function clickSelector(page: Page, selector: string | undefined, clock: Countdown): Promise<void> {
  if (!selector) return;
  const element = await page
    .waitForSelector(selector, { timeout: Math.min(APPEAR_WITHIN_MS, clock.remainingMs()) })
    .catch((err: unknown) => {
      if (err instanceof Error && /is not a valid selector|SyntaxError/i.test(err.message)) {
        throw new ValidationError([{ parameter: 'click_selector', message: 'click_selector is not a valid CSS selector' }]);
      }
      return null;
    });
  if (!element) {
    throw new AppError('selector_not_found', `click_selector: no element matches ${quote(selector)}.`, {
      details: [{ parameter: 'click_selector', message: `no element matches ${quote(selector)}` }],
    });
  }
  try {
    await element.click();
  } catch {
    // Not visible or covered: a click event still reaches it.
    await element.evaluate((e) => (e as unknown as { click(): void }).click());
  } finally {
    await element.dispose().catch(() => undefined);
  }
  await nextFrames(page);
}

/** Two animation frames: what the click changed is painted. */
export function nextFrames(page: Page): Promise<unknown> {
  return page
    .evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
    .catch(() => undefined);
}

function quote(selector: string): string {
  return JSON.stringify(selector.length > 80 ? `${selector.slice(0, 77)}...` : selector);
}
