/// <reference lib="dom" />
import { setTimeout as sleep } from 'node:timers/promises';
import type { ElementHandle, HTTPRequest, KeyInput, Page, PuppeteerLifeCycleEvent } from 'puppeteer-core';
import { AppError, ValidationError, errors, isAppError } from '@app/errors';
import type { BrowserStep } from '@app/proto/render';
import type { Countdown } from '../countdown.js';
import { navigationError } from '../render-errors.js';
import { describeStep, stepTimeout, type StepPlace } from './step-errors.js';

/** What a render's steps need besides the page: the secrets they type, and the address check of every navigation. */
export interface StepsEnv {
  /** The values of the account secrets the steps name (fetched for this render only). */
  secrets: ReadonlyMap<string, string>;
  /** Throws target_not_allowed (naming `parameter`) when the address may not be loaded. */
  checkAddress(url: string, parameter: string): Promise<void>;
}

/** A step's element is looked for this long before the step fails with selector_not_found. */
export const ELEMENT_WAIT_MS = 10_000;
/** An optional step's element is looked for this long before the step is skipped. */
export const OPTIONAL_WAIT_MS = 1_000;
/** After an action, how long a navigation it caused may take to start. */
const NAVIGATION_START_MS = 300;
/** Each step ends this much before the render's deadline, so the timeout answered names it. */
const ANSWER_MARGIN_MS = 300;
/** Puppeteer's errors when the document a call ran in went away. */
const LEFT_PAGE = /context was destroyed|Cannot find context|detached|Target closed|navigat/i;
/** Text up to this long is typed key by key; longer text is inserted at once (as a paste). */
const KEYSTROKE_TEXT_MAX = 200;

const PRESS_KEYS: Readonly<Record<string, KeyInput>> = { Space: ' ' as KeyInput };

/**
 * Runs the render's `steps` in order on the loaded page. Each step is bounded by what is left of the
 * render's timeout (a timeout names the step and what it waited for); an element a step needs that
 * never comes is 400 selector_not_found naming `steps[i].selector`, or the step is skipped when it is
 * `optional`. A navigation a step causes is awaited (`wait_until`) and its address checked by the same
 * rule as `url`; the network path of every request is the egress guard's anyway.
 */
export async function runSteps(
  page: Page,
  steps: readonly BrowserStep[],
  waitUntil: PuppeteerLifeCycleEvent[],
  clock: Countdown,
  env: StepsEnv,
): Promise<StepsRun> {
  let navigatedBy: StepPlace | undefined;
  for (const [index, step] of steps.entries()) {
    const place: StepPlace = { index, step };
    if (clock.remainingMs() <= ANSWER_MARGIN_MS) throw stepTimeout(clock, place, 'its turn');
    const waiting = { for: 'its action to finish' };
    const navigated = await boundedBy(clock, place, waiting, runStep(page, place, waitUntil, clock, env, waiting)).catch((err: unknown) => {
      if (isAppError(err)) throw err;
      // The page replaced its document under the step (a page that keeps reloading, say).
      if (err instanceof Error && LEFT_PAGE.test(err.message)) {
        throw new AppError('render_failed', `${describeStep(place)}: the page went to another document while the step ran.`, {
          details: [{ parameter: `steps[${index}]`, message: 'the page went to another document while the step ran' }],
        });
      }
      throw new AppError('render_failed', `${describeStep(place)} failed.`, { cause: err, details: [{ parameter: `steps[${index}]`, message: 'the step failed' }] });
    });
    if (navigated) navigatedBy = place;
  }
  return navigatedBy ? { navigatedBy } : {};
}

/** What the steps did that the rest of the render may have to answer for. */
export interface StepsRun {
  /** The last step that led the page to another document (a goto, a link clicked, a form sent). */
  navigatedBy?: StepPlace;
}

/** The step, or a render_timeout naming it (and what it was waiting for) just before the render's deadline. */
async function boundedBy<T>(clock: Countdown, place: StepPlace, waiting: { for: string }, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(stepTimeout(clock, place, waiting.for)), Math.max(0, clock.remainingMs() - ANSWER_MARGIN_MS));
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs one step; answers whether it led the page to another document. */
async function runStep(page: Page, place: StepPlace, waitUntil: PuppeteerLifeCycleEvent[], clock: Countdown, env: StepsEnv, waiting: { for: string }): Promise<boolean> {
  const { step, index } = place;
  const at = `steps[${index}]`;
  switch (step.action) {
    case 'wait': {
      waiting.for = `${step.ms ?? 0} ms to pass`;
      await sleep(step.ms ?? 0);
      return false;
    }
    case 'goto': {
      const url = step.url ?? '';
      await env.checkAddress(url, `${at}.url`);
      waiting.for = `${JSON.stringify(url)} to load`;
      await page.goto(url, { waitUntil, timeout: clock.remainingMs() }).catch((err: unknown) => {
        throw stepNavigationError(err, place, url, clock);
      });
      await checkLanding(page, place, env);
      return true;
    }
    case 'press': {
      waiting.for = 'the page to take the key';
      return navigatingAction(page, place, waitUntil, clock, env, waiting, () => page.keyboard.press(PRESS_KEYS[step.key ?? ''] ?? (step.key as KeyInput)));
    }
    default:
      break;
  }
  const element = await findElement(page, place, clock, waiting);
  if (!element) return false; // optional, absent: skipped
  try {
    switch (step.action) {
      case 'click':
        return await navigatingAction(page, place, waitUntil, clock, env, waiting, () => clickElement(element));
      case 'type':
        await typeInto(page, element, place, env);
        return false;
      case 'select': {
        const chosen = await element.select(step.value ?? '').catch(() => {
          throw new ValidationError([{ parameter: `${at}.selector`, message: `${describeStep(place)}: the element is not a <select>` }]);
        });
        if (chosen.length === 0) {
          throw new ValidationError([{ parameter: `${at}.value`, message: `${describeStep(place)}: no option has the value ${JSON.stringify(step.value)}` }]);
        }
        return false;
      }
      case 'check': {
        const checked = () => element.evaluate((e) => (e as HTMLInputElement).checked === true);
        const navigated = !(await checked()) && (await navigatingAction(page, place, waitUntil, clock, env, waiting, () => clickElement(element)));
        if (!(await checked().catch(() => true))) {
          throw new ValidationError([{ parameter: `${at}.selector`, message: `${describeStep(place)}: the element is not a checkbox or radio button that could be checked` }]);
        }
        return navigated;
      }
      case 'hover':
        await element.hover();
        return false;
      case 'scroll_to':
        await element.scrollIntoView();
        return false;
      case 'wait_for_selector':
        return false;
      default:
        throw new ValidationError([{ parameter: `${at}.action`, message: `${at}.action ${JSON.stringify(step.action)} is not a step` }]);
    }
  } finally {
    await element.dispose().catch(() => undefined);
  }
}

/**
 * The element the step acts on: present (visible, for wait_for_selector) within ELEMENT_WAIT_MS or what
 * is left of the timeout; an optional step's within OPTIONAL_WAIT_MS, or undefined (skipped).
 */
async function findElement(page: Page, place: StepPlace, clock: Countdown, waiting: { for: string }): Promise<ElementHandle | undefined> {
  const { step, index } = place;
  const selector = step.selector ?? '';
  const valid = await isValidSelector(page, selector);
  if (!valid) throw new ValidationError([{ parameter: `steps[${index}].selector`, message: `steps[${index}].selector is not a valid CSS selector` }]);
  const visible = step.action === 'wait_for_selector';
  waiting.for = `${visible ? 'a visible element matching' : 'an element matching'} ${quote(selector)}`;
  const patience = step.optional ? OPTIONAL_WAIT_MS : visible ? Number.POSITIVE_INFINITY : ELEMENT_WAIT_MS;
  const left = clock.remainingMs() - ANSWER_MARGIN_MS;
  const handle = await page
    .waitForSelector(selector, { visible, timeout: Math.max(1, Math.min(patience, left)) })
    .catch(() => null);
  if (handle) return handle as ElementHandle;
  if (step.optional) return undefined;
  if (patience >= left) throw stepTimeout(clock, place, waiting.for);
  throw new AppError('selector_not_found', `${describeStep(place)}: no element matches ${quote(selector)} (waited ${patience / 1000} s).`, {
    details: [{ parameter: `steps[${index}].selector`, message: `no element matches ${quote(selector)}` }],
  });
}

async function clickElement(element: ElementHandle): Promise<void> {
  try {
    await element.click();
  } catch {
    // Covered or outside the viewport: a click event still reaches it.
    await element.evaluate((e) => (e as HTMLElement).click());
  }
}

/**
 * Types the step's text, or its secret's value, into the element (its previous value cleared). Nothing
 * of what is typed ever goes into an error: a failure says only which step failed.
 */
async function typeInto(page: Page, element: ElementHandle, place: StepPlace, env: StepsEnv): Promise<void> {
  const { step, index } = place;
  const text = step.secret !== undefined ? env.secrets.get(step.secret) : step.text;
  if (text === undefined) {
    throw new AppError('secret_not_found', `steps[${index}].secret: the account has no secret named ${JSON.stringify(step.secret)}.`, {
      details: [{ parameter: `steps[${index}].secret`, message: `no secret named ${JSON.stringify(step.secret)}` }],
    });
  }
  try {
    await element.evaluate((e) => {
      const field = e as HTMLInputElement;
      field.focus();
      if ('value' in field) field.value = '';
      else if ((e as HTMLElement).isContentEditable) (e as HTMLElement).textContent = '';
    });
    if (text.length <= KEYSTROKE_TEXT_MAX) await element.type(text);
    else await page.keyboard.sendCharacter(text);
  } catch {
    throw new AppError('render_failed', `${describeStep(place)}: the text could not be typed into the element.`);
  }
}

/**
 * An action that may navigate the page (a click on a link or a submit button, Enter in a form): when a
 * navigation of the main frame starts soon after it, it is awaited (`wait_until`) and where it landed is
 * checked like `url`. Answers whether it navigated.
 */
async function navigatingAction(
  page: Page,
  place: StepPlace,
  waitUntil: PuppeteerLifeCycleEvent[],
  clock: Countdown,
  env: StepsEnv,
  waiting: { for: string },
  act: () => Promise<unknown>,
): Promise<boolean> {
  let started!: () => void;
  const navigationStarted = new Promise<true>((resolve) => {
    started = () => resolve(true);
  });
  const onRequest = (request: HTTPRequest) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) started();
  };
  page.on('request', onRequest);
  const navigation = page.waitForNavigation({ waitUntil, timeout: clock.remainingMs() });
  navigation.catch(() => undefined);
  try {
    await act();
    const navigates = await Promise.race([navigationStarted, sleep(NAVIGATION_START_MS).then(() => false)]);
    if (!navigates) return false;
    waiting.for = 'the page it opened to load';
    await navigation.catch((err: unknown) => {
      throw stepNavigationError(err, place, page.url(), clock);
    });
    await checkLanding(page, place, env);
    return true;
  } finally {
    page.off('request', onRequest);
  }
}

/** Where a step's navigation landed passes the address check of `url` (the egress guard refused its traffic already). */
async function checkLanding(page: Page, place: StepPlace, env: StepsEnv): Promise<void> {
  const url = page.url();
  if (!/^https?:/i.test(url)) return;
  await env.checkAddress(url, `steps[${place.index}]`);
}

function stepNavigationError(err: unknown, place: StepPlace, url: string, clock: Countdown): AppError {
  const translated = navigationError(err, { url }, clock);
  if (translated.code === 'render_timeout') return stepTimeout(clock, place, `${quote(url)} to load`);
  if (translated.code === 'name_not_resolved') return errors.nameNotResolved(`steps[${place.index}]`, safeHost(url));
  return new AppError(translated.code, `${describeStep(place)}: ${translated.message}`, { details: [{ parameter: `steps[${place.index}]`, message: translated.message }] });
}

const safeHost = (url: string) => (URL.canParse(url) ? new URL(url).hostname : url);
const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}...` : s);

/** Whether the selector is valid CSS, asked again when the page changes document meanwhile. */
async function isValidSelector(page: Page, selector: string): Promise<boolean> {
  for (;;) {
    try {
      return await page.evaluate((s: string) => {
        try {
          document.querySelector(s);
          return true;
        } catch {
          return false;
        }
      }, selector);
    } catch (err) {
      if (!(err instanceof Error && LEFT_PAGE.test(err.message))) throw err;
      await sleep(50);
    }
  }
}
