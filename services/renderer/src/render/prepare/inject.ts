/// <reference lib="dom" />
import type { Page, PuppeteerLifeCycleEvent } from 'puppeteer-core';
import { ValidationError } from '@app/errors';
import type { Countdown } from '../countdown.js';

/**
 * `styles`: the caller's CSS, added to the loaded page as a constructed style sheet (which a
 * Content-Security-Policy does not stop, as for hide_selectors). What it loads (url(), fonts) goes
 * through the browser's network path, so through the egress guard, like the page's own requests.
 */
export async function injectStyles(page: Page, css: string | undefined): Promise<void> {
  if (!css) return;
  await page.evaluate((text: string) => {
    const sheet = new CSSStyleSheet();
    // replaceSync drops @import rules (a constructed sheet may not import); the rest applies.
    sheet.replaceSync(text);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }, css);
}

/** The longest part of a page error's message repeated to the caller. */
const MESSAGE_MAX = 200;

/**
 * `scripts`: the caller's JavaScript, run in the loaded page's main frame as a classic script (its
 * `var`s and functions become globals, as in a `<script>`), through DevTools, so a Content-Security-Policy
 * does not stop it. When its completion value is a promise, that promise is awaited (within the
 * render's timeout). What it fetches goes through the egress guard like the page's own requests. A
 * script that throws is a 400 naming `scripts`; one that navigates the page has its new document
 * awaited (`wait_until`).
 */
export async function runScripts(page: Page, script: string | undefined, waitUntil: PuppeteerLifeCycleEvent[], clock: Countdown): Promise<void> {
  if (!script) return;
  const session = await page.createCDPSession();
  try {
    const navigated = page.waitForNavigation({ waitUntil, timeout: clock.remainingMs() }).then(
      () => true,
      () => false,
    );
    const answer = await session
      .send('Runtime.evaluate', {
        // A line break first, so a script ending in a // comment does not comment the rest out.
        expression: `${script}\n`,
        awaitPromise: true,
        returnByValue: false,
        userGesture: true,
      })
      .catch((err: unknown) => {
        // The page went to another document while the script ran: its completion is lost with it.
        if (err instanceof Error && /context was destroyed|Inspected target navigated|Cannot find context/i.test(err.message)) return 'navigated' as const;
        throw err;
      });
    if (answer === 'navigated') {
      await navigated;
      return;
    }
    if (answer.exceptionDetails) {
      const text = answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text;
      throw new ValidationError([{ parameter: 'scripts', message: `scripts threw an error in the page: ${firstLine(text)}` }]);
    }
  } finally {
    await session.detach().catch(() => undefined);
  }
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]!.trim();
  return line.length > MESSAGE_MAX ? `${line.slice(0, MESSAGE_MAX - 3)}...` : line;
}
