import { errors, type AppError } from '@app/errors';
import type { RenderDeadline } from './types.js';

export interface Countdown {
  readonly timeoutMs: number;
  /** Milliseconds left, at least 1 (Puppeteer reads 0 as "no timeout"). */
  remainingMs(): number;
  timeoutError(): AppError;
  /**
   * The promise, or timeoutError() once the countdown runs out, whichever comes first. The timer runs
   * outside CDP, so a page whose script never gives its thread back cannot hold the render past it.
   */
  within<T>(promise: Promise<T>): Promise<T>;
}

export function countdown(deadline: RenderDeadline, now: () => number = Date.now): Countdown {
  const endsAt = deadline.endsAt ?? now() + deadline.timeoutMs;
  const timeoutError = () => errors.renderTimeout(deadline.timeoutMs / 1000);
  return {
    timeoutMs: deadline.timeoutMs,
    remainingMs: () => Math.max(1, endsAt - now()),
    timeoutError,
    within<T>(promise: Promise<T>): Promise<T> {
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(timeoutError()), Math.max(0, endsAt - now()));
      });
      return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
    },
  };
}
