import { isAppError } from './app-error.js';
import { ERROR_CODES, type AckPolicy } from './codes.js';

/**
 * How a consumer settles a message once handled: done (ack), never again (term: the message can never
 * succeed), or again after a delay (nak). The one vocabulary of every NATS consumer of the service.
 */
export type Disposition = { kind: 'ack' } | { kind: 'term' } | { kind: 'nak'; delayMs: number };

export const ack: Disposition = { kind: 'ack' };
export const term: Disposition = { kind: 'term' };
export const nak = (delayMs: number): Disposition => ({ kind: 'nak', delayMs });

/** The error table's ack policy for a failure; an error the table does not know is a fault, tried again. */
export function ackPolicyOf(err: unknown): AckPolicy {
  return isAppError(err) ? ERROR_CODES[err.code].ack : 'nak';
}

/** True when a failure with this error is worth another delivery (the table says nak). */
export const isRetryable = (err: unknown): boolean => ackPolicyOf(err) === 'nak';

/**
 * How to settle a message whose handling failed with `err`, by the error table: again after the error's
 * Retry-After (or `delayMs`) while deliveries remain, when the table says nak; otherwise (or on the last
 * delivery) done: `ack`, or `term` for a message that can never succeed. A consumer that gets `ack` or
 * `term` records the failure (a failed run, a failed render) before settling.
 */
export function dispositionAfter(err: unknown, attempt: { isLast: boolean }, delayMs: number): Disposition {
  const policy = ackPolicyOf(err);
  if (policy === 'nak') {
    if (attempt.isLast) return ack;
    const retryAfterMs = isAppError(err) && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : undefined;
    return nak(retryAfterMs ?? delayMs);
  }
  return policy === 'term' ? term : ack;
}
