import { TimeoutError } from 'puppeteer-core';
import { AppError, errors, isAppError } from '@app/errors';
import type { Countdown } from './countdown.js';

const NET_ERROR = /\bnet::(ERR_[A-Z0-9_]+)/;

/** Chromium's network error code (ERR_NAME_NOT_RESOLVED, ...) carried by a navigation error, if any. */
export function netErrorCode(err: unknown): string | undefined {
  return err instanceof Error ? NET_ERROR.exec(err.message)?.[1] : undefined;
}

/**
 * Translates a failed navigation into an error safe to show the caller: the message names the
 * parameter and Chromium's error code, never a stack or an internal detail.
 */
export function navigationError(err: unknown, target: { url?: string | undefined }, clock: Countdown): AppError {
  if (isAppError(err)) return err;
  if (err instanceof TimeoutError) return clock.timeoutError();
  const code = netErrorCode(err);
  if (code === 'ERR_NAME_NOT_RESOLVED' && target.url) {
    return errors.nameNotResolved('url', hostOf(target.url));
  }
  if (code) {
    return new AppError('render_failed', `url: the page could not be loaded (${code}).`, { cause: err });
  }
  return new AppError('render_failed', 'The page could not be loaded.', { cause: err });
}

/** Any other failure while producing the output. */
export function renderError(err: unknown, clock: Countdown): AppError {
  if (isAppError(err)) return err;
  if (err instanceof TimeoutError) return clock.timeoutError();
  return new AppError('render_failed', 'The page could not be rendered.', { cause: err });
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'of the url';
  }
}
