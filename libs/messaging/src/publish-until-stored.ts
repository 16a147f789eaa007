import type { JetStreamClient, JetStreamPublishOptions, PubAck } from '@nats-io/jetstream';
import { isBusUnavailable } from './bus-errors.js';

/**
 * Publishes to a stream and, while the bus is unavailable for a moment (a stream electing its leader after
 * a NATS node was lost, a reconnect), tries again for up to `retryForMs`. The message id makes a retry safe:
 * an attempt that reached the stream although its acknowledgement was lost is not stored twice (within the
 * stream's duplicate window). For events that must not be lost once their effect was seen, such as a
 * render's outcome that a caller already received and that its charge depends on.
 */
export async function publishUntilStored(
  js: JetStreamClient,
  subject: string,
  data: Uint8Array,
  opts: Partial<JetStreamPublishOptions> & { msgID: string },
  retryForMs = 30_000,
): Promise<PubAck> {
  const deadline = Date.now() + retryForMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await js.publish(subject, data, opts);
    } catch (err) {
      if (!isBusUnavailable(err) || Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 2_000)));
    }
  }
}
