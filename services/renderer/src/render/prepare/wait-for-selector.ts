/// <reference lib="dom" />
import { TimeoutError, type Page } from 'puppeteer-core';
import { AppError, ValidationError } from '@app/errors';
import type { Countdown } from '../countdown.js';

/** How often the page is looked at for the element. */
const POLL_MS = 100;
/**
 * The wait ends this much before the render's deadline, so the timeout answered is this one, naming
 * the selector, and not the render's own, which would say only that time ran out.
 */
const ANSWER_MARGIN_MS = 250;

/** The quoted selector, shortened for a message. */
export const quoteSelector = (selector: string): string => JSON.stringify(selector.length > 80 ? `${selector.slice(0, 77)}...` : selector);

/**
 * wait_for_selector: waits until an element matching the selector is visible (a box of some size, not
 * `visibility: hidden`, in the main frame), within the render's timeout. None in time: render_timeout
 * naming the selector. Not valid CSS: 400 naming wait_for_selector.
 */
export async function waitForSelector(page: Page, selector: string | undefined, clock: Countdown): Promise<void> {
  if (!selector) return;
  const valid = await page.evaluate((s: string) => {
    try {
      document.querySelector(s);
      return true;
    } catch {
      return false;
    }
  }, selector);
  if (!valid) throw new ValidationError([{ parameter: 'wait_for_selector', message: 'wait_for_selector is not a valid CSS selector' }]);
  const found = await page
    .waitForFunction(
      (s: string) =>
        [...document.querySelectorAll(s)].some((element) => {
          const box = element.getBoundingClientRect();
          return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== 'hidden';
        }),
      { polling: POLL_MS, timeout: Math.max(1, clock.remainingMs() - ANSWER_MARGIN_MS) },
      selector,
    )
    .then(
      (handle) => handle.dispose().then(() => true),
      (err: unknown) => {
        if (err instanceof TimeoutError) return false;
        throw err;
      },
    );
  if (!found) {
    throw new AppError(
      'render_timeout',
      `The render did not finish within the timeout of ${clock.timeoutMs / 1000} seconds: no visible element matched wait_for_selector ${quoteSelector(selector)}.`,
      { details: [{ parameter: 'wait_for_selector', message: `no visible element matched ${quoteSelector(selector)} within the timeout` }] },
    );
  }
}
