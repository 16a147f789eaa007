import { SUBJECTS, type NatsConnection } from '@app/messaging';
import type { StartGate } from '../application/ports.js';

/** Long enough for a busy edge to answer; an unanswered job comes back to be asked again. */
const ASK_TIMEOUT_MS = 2_000;

/**
 * Asks the edge waiting for a job on its start subject (core NATS request/reply). "go" starts it; "shed"
 * or nobody listening (the edge already answered 503, or is gone) drops it; no answer in time asks again later.
 */
export function natsStartGate(nc: NatsConnection): StartGate {
  return {
    async confirm(jobId) {
      try {
        const reply = await nc.request(SUBJECTS.renderStart(jobId), undefined, { timeout: ASK_TIMEOUT_MS });
        return reply.string() === 'go' ? 'go' : 'shed';
      } catch (err) {
        const e = err as Error & { isNoResponders?: () => boolean };
        return e.name === 'NoRespondersError' || e.isNoResponders?.() ? 'shed' : 'unanswered';
      }
    },
  };
}
