import { setTimeout as sleep } from 'node:timers/promises';
import { SUBJECTS, isNoResponders, type NatsConnection } from '@app/messaging';
import type { StartGate } from '../application/ports.js';

/** Long enough for a busy edge to answer; an unanswered job comes back to be asked again. */
const ASK_TIMEOUT_MS = 2_000;

/**
 * How long after a job was queued "nobody listening" may still be news that has not travelled: on a NATS
 * cluster the edge's subscription reaches the other servers by their routes, while the job reaches this
 * renderer through the stream's leader, so the question can arrive at a server that has not yet heard of
 * the subscription. Within this, the question is asked again; past it (an edge that answered 503 gave up
 * after seconds), nobody listening drops the job at once.
 */
export const INTEREST_SETTLE_MS = 1_000;
const ASK_AGAIN_AFTER_MS = 50;

/**
 * Asks the edge waiting for a job on its start subject (core NATS request/reply). "go" starts it; "shed"
 * or nobody listening (the edge already answered 503, or is gone) drops it; no answer in time asks again later.
 */
export function natsStartGate(nc: NatsConnection, opts: { now?: () => number; settleMs?: number } = {}): StartGate {
  const now = opts.now ?? Date.now;
  const settleMs = opts.settleMs ?? INTEREST_SETTLE_MS;
  return {
    async confirm(job, queuedUnixMs) {
      const subject = SUBJECTS.renderStart(job);
      for (;;) {
        try {
          const reply = await nc.request(subject, undefined, { timeout: ASK_TIMEOUT_MS });
          return reply.string() === 'go' ? 'go' : 'shed';
        } catch (err) {
          if (!isNoResponders(err)) return 'unanswered';
          if (now() - queuedUnixMs >= settleMs) return 'shed';
          await sleep(ASK_AGAIN_AFTER_MS);
        }
      }
    },
  };
}
