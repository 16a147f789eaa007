import type { HTTPResponse, Page, PuppeteerLifeCycleEvent } from 'puppeteer-core';
import { ValidationError, errors } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import type { Countdown } from './countdown.js';
import { navigationError } from './render-errors.js';

const LIFECYCLE_EVENTS: Readonly<Record<string, PuppeteerLifeCycleEvent>> = {
  load: 'load',
  domcontentloaded: 'domcontentloaded',
  networkidle0: 'networkidle0',
  networkidle2: 'networkidle2',
};

export const DEFAULT_WAIT_UNTIL: readonly PuppeteerLifeCycleEvent[] = ['domcontentloaded'];

/** `wait_until` as Puppeteer lifecycle events; unknown values are ignored, none means the default. */
export function lifecycleEvents(waitUntil: readonly string[] | undefined): PuppeteerLifeCycleEvent[] {
  const events = [...new Set((waitUntil ?? []).flatMap((value) => LIFECYCLE_EVENTS[value] ?? []))];
  return events.length > 0 ? events : [...DEFAULT_WAIT_UNTIL];
}

export interface Navigation {
  /** The main response (absent for `html` input). */
  response?: HTTPResponse | undefined;
  /** Its HTTP status. An error status is not a failure: the page is still rendered. */
  status?: number | undefined;
}

/**
 * page.setContent writes `html` into the page's current document (document.open() keeps its window).
 * That document must be one the page setup's new-document scripts ran in (WebRTC removed, consent
 * handling), which the page's first, pre-made document is not: a navigation to about:blank makes a
 * fresh one first. setContent only waits for load/domcontentloaded; networkidle* is awaited afterwards
 * with the same meaning as for goto (no more than 0 or 2 connections for 500 ms).
 */
async function setContent(page: Page, html: string, waitUntil: PuppeteerLifeCycleEvent[], clock: Countdown): Promise<void> {
  const idle = waitUntil.includes('networkidle0') ? 0 : waitUntil.includes('networkidle2') ? 2 : undefined;
  const documentEvents = waitUntil.filter((e): e is 'load' | 'domcontentloaded' => e === 'load' || e === 'domcontentloaded');
  await page.goto('about:blank', { waitUntil: 'load', timeout: clock.remainingMs() });
  await page.setContent(html, {
    waitUntil: idle === undefined ? documentEvents : ['load', ...documentEvents],
    timeout: clock.remainingMs(),
  });
  if (idle !== undefined) await page.waitForNetworkIdle({ idleTime: 500, concurrency: idle, timeout: clock.remainingMs() });
}

/** Loads `url` (or `html`) and waits for the `wait_until` conditions. */
export async function navigate(page: Page, params: RenderParams, clock: Countdown): Promise<Navigation> {
  const waitUntil = lifecycleEvents(params.wait_until);
  let navigation: Navigation = {};
  try {
    if (params.url) {
      if (!/^https?:$/i.test(safeProtocol(params.url))) throw errors.targetNotAllowed('url', 'the URL scheme must be one of http, https');
      const response = (await page.goto(params.url, { waitUntil, timeout: clock.remainingMs() })) ?? undefined;
      navigation = { response, status: response?.status() };
    } else if (params.html !== undefined) {
      await setContent(page, params.html, waitUntil, clock);
    } else {
      throw new ValidationError([{ parameter: 'url', message: 'either url or html must be provided' }]);
    }
  } catch (err) {
    throw navigationError(err, params, clock);
  }
  return navigation;
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}
