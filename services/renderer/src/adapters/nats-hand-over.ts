import { SUBJECTS, traceHeaders, type NatsConnection } from '@app/messaging';
import { RenderHandOver } from '@app/proto/render';
import type { ResultHandOver } from '../application/ports.js';

/** Long enough for a busy edge to answer; past it the result is stored and announced as usual. */
const OFFER_TIMEOUT_MS = 2_000;
/** Room kept in a message for its headers and the outcome around the body. */
const ENVELOPE_BYTES = 64 * 1024;

/**
 * Offers the result to the edge waiting for the job on its hand-over subject (core NATS request/reply).
 * Only a result that fits in one message (the server's max_payload, less room for the rest) is offered.
 */
export function natsResultHandOver(nc: NatsConnection): ResultHandOver {
  return {
    async offer(job, event, body) {
      const maxPayload = nc.info?.max_payload ?? 0;
      if (body.byteLength > maxPayload - ENVELOPE_BYTES) return false;
      try {
        // A view of the same bytes, no copy.
        const data = RenderHandOver.encode({ finished: event, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) }).finish();
        const reply = await nc.request(SUBJECTS.renderHandOver(job), data, { timeout: OFFER_TIMEOUT_MS, headers: traceHeaders() });
        return reply.string() === 'taken';
      } catch {
        // Nobody listening (the caller already answered, or is gone), no answer in time, the bus down.
        return false;
      }
    },
  };
}
