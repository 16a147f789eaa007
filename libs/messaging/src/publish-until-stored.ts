import type { JetStreamClient, JetStreamPublishOptions, PubAck } from '@nats-io/jetstream';
import { isBusUnavailable } from './bus-errors.js';
import { retryUntil } from './retry-until.js';

/**
 * Runs `op` and, while the bus is unavailable for a moment (a stream or bucket electing its leader after a
 * NATS node was lost, a reconnect), runs it again for up to `retryForMs`, backing off from 100 ms to 2 s.
 * Any other error, or one past the deadline, is thrown. Only for operations safe to repeat.
 */
export function whileBusUnavailable<T>(op: () => Promise<T>, retryForMs: number): Promise<T> {
  return retryUntil(op, { retryOn: isBusUnavailable, timeoutMs: retryForMs, intervalMs: 100, maxIntervalMs: 2_000 });
}

/**
 * Publishes to a stream and, while the bus is unavailable for a moment, tries again for up to `retryForMs`.
 * The message id makes a retry safe: an attempt that reached the stream although its acknowledgement was
 * lost is not stored twice (within the stream's duplicate window). For events that must not be lost once
 * their effect was seen, such as a render's outcome that a caller already received and that its charge
 * depends on.
 */
export function publishUntilStored(
  js: JetStreamClient,
  subject: string,
  data: Uint8Array,
  opts: Partial<JetStreamPublishOptions> & { msgID: string },
  retryForMs = 30_000,
): Promise<PubAck> {
  return whileBusUnavailable(() => js.publish(subject, data, opts), retryForMs);
}
