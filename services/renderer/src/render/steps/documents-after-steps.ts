import type { HTTPRequest, Page } from 'puppeteer-core';
import { AppError } from '@app/errors';
import type { Countdown } from '../countdown.js';
import { describeStep, type StepPlace } from './step-errors.js';

/** This many new documents after the steps ended make a page that keeps loading (one or two: a redirect, a slow page). */
const KEEPS_LOADING = 3;
/** Puppeteer's errors when the document a call ran in went away. */
const LEFT_PAGE = /context was destroyed|Cannot find context|detached|navigat/i;
/** A render held up by such a page answers this much before its deadline, so the answer is this one. */
const ANSWER_MARGIN_MS = 300;

export interface DocumentsAfterSteps {
  /**
   * A render_timeout that came while the page kept loading new documents, or a capture that failed as
   * its document went away, names the step that led the page there; any other error is left as it is.
   */
  explain(err: AppError): AppError;
  /**
   * The work, or (just before the clock runs out, when the page kept loading new documents) the
   * render_timeout naming the step; a page that did not keep loading is left to the render's deadline.
   */
  bound<T>(work: Promise<T>, clock: Countdown): Promise<T>;
  stop(): void;
}

/**
 * Counts the documents the page's main frame starts loading once the steps ended. When a step led the
 * page somewhere that reloads or redirects itself forever (a click on a button that reloads the page,
 * which then reloads itself), the steps end but the capture after them never finds a document that
 * stays: its timeout then says so and names that step, instead of a bare "did not finish".
 */
export function watchDocumentsAfterSteps(page: Page, navigatedBy: StepPlace): DocumentsAfterSteps {
  let documents = 0;
  const onRequest = (request: HTTPRequest) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) documents += 1;
  };
  page.on('request', onRequest);
  const explain = (err: AppError): AppError => {
    if ((err.details?.length ?? 0) > 0) return err;
    const cause = err.cause instanceof Error ? err.cause.message : '';
    if (err.code === 'render_failed' && documents > 0 && LEFT_PAGE.test(cause)) {
      return new AppError('render_failed', `The page could not be captured: it went on to another document after ${describeStep(navigatedBy)} (${documents} since the steps ended).`, {
        cause: err,
        details: [{ parameter: `steps[${navigatedBy.index}]`, message: `the page went on to another document after this step while it was captured` }],
      });
    }
    if (err.code !== 'render_timeout' || documents < KEEPS_LOADING) return err;
    const what = `the page kept loading new documents after ${describeStep(navigatedBy)} (${documents} since the steps ended)`;
    return new AppError('render_timeout', `${err.message.replace(/\.$/, '')}: ${what}.`, {
      cause: err,
      details: [{ parameter: `steps[${navigatedBy.index}]`, message: `the page kept loading new documents after this step (${documents} since the steps ended)` }],
    });
  };
  return {
    explain,
    async bound(work, clock) {
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          if (documents >= KEEPS_LOADING) reject(explain(clock.timeoutError()));
        }, Math.max(0, clock.remainingMs() - ANSWER_MARGIN_MS));
      });
      work.catch(() => undefined);
      try {
        return await Promise.race([work, gaveUp]);
      } finally {
        clearTimeout(timer);
      }
    },
    stop: () => void page.off('request', onRequest),
  };
}
