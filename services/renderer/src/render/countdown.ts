import { errors, type AppError } from '@app/errors';
import type { RenderDeadline } from './types.js';

export interface Countdown {
  readonly timeoutMs: number;
  /** Milliseconds left, at least 1 (Puppeteer reads 0 as "no timeout"). */
  remainingMs(): number;
  timeoutError(): AppError;
}

export function countdown(deadline: RenderDeadline, now: () => number = Date.now): Countdown {
  const endsAt = now() + deadline.timeoutMs;
  return {
    timeoutMs: deadline.timeoutMs,
    remainingMs: () => Math.max(1, endsAt - now()),
    timeoutError: () => errors.renderTimeout(deadline.timeoutMs / 1000),
  };
}
