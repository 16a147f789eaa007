import type { Disposition } from '@app/errors';
import type { WebhookState } from '@app/render-contracts';
import { withJitter } from './retry-schedule.js';

/** How one attempt ended. */
export type AttemptOutcome =
  | { kind: 'response'; status: number; retryAfterMs?: number | undefined }
  | { kind: 'timeout' }
  | { kind: 'connection_failed' }
  /** The SSRF check at delivery refused the target (it now resolves to a private address, say). */
  | { kind: 'target_not_allowed' };


export interface RetryPolicy {
  /** Waits before the 2nd, 3rd, … attempt; its length + 1 is the number of attempts. */
  scheduleMs: number[];
  jitter: number;
  /** An honoured Retry-After never pushes the next attempt further than this. */
  maxDelayMs: number;
}

const failureReason = (o: AttemptOutcome): string =>
  o.kind === 'response' ? (o.status === 410 ? 'gone' : 'http_status') : o.kind;

/**
 * Decides after attempt number `attempt` (1-based): 2xx is delivered; 410 stops; anything else (3xx
 * included: redirects are never followed, a timeout, a refused connection, a refused target) is retried
 * on the schedule, honouring Retry-After when it asks for more; after the last attempt the state is failed.
 */
export function decideAfterAttempt(
  outcome: AttemptOutcome,
  attempt: number,
  nowMs: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): { state: WebhookState; disposition: Disposition } {
  const lastStatus = outcome.kind === 'response' ? outcome.status : undefined;
  const base = { attempts: attempt, lastStatus, lastAttemptUnixMs: nowMs };
  if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) {
    return { state: { state: 'delivered', ...base }, disposition: { kind: 'ack' } };
  }
  const lastError = failureReason(outcome);
  const scheduled = policy.scheduleMs[attempt - 1];
  if ((outcome.kind === 'response' && outcome.status === 410) || scheduled === undefined) {
    return { state: { state: 'failed', ...base, lastError }, disposition: { kind: 'term' } };
  }
  const retryAfter = outcome.kind === 'response' ? (outcome.retryAfterMs ?? 0) : 0;
  const delayMs = Math.min(policy.maxDelayMs, Math.max(withJitter(scheduled, policy.jitter, random), retryAfter));
  return {
    state: { state: 'pending', ...base, lastError, nextAttemptUnixMs: nowMs + delayMs },
    disposition: { kind: 'nak', delayMs },
  };
}
