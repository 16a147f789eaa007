import { isWrongRevision, whileBusUnavailable, type KV } from '@app/messaging';
import { decodeWebhookState, encodeWebhookState, webhookStateKey } from '@app/render-contracts';
import type { DeliveryStates } from '../application/ports.js';

/** How long an attempt's outcome is written again while the bucket elects a leader (a NATS node lost). */
export const RECORD_RETRY_MS = 30_000;

/**
 * Delivery state in the render-status KV bucket (`webhook.<render id>`), where the status API reads it. The
 * bucket is opened without direct gets, so a read is the stream leader's: never a follower's older copy.
 */
export function kvDeliveryStates(kv: KV, recordRetryMs = RECORD_RETRY_MS): DeliveryStates {
  return {
    async get(renderId) {
      const entry = await kv.get(webhookStateKey(renderId));
      if (!entry || entry.operation !== 'PUT') return undefined;
      const state = decodeWebhookState(entry.value);
      return state ? { state, revision: entry.revision } : undefined;
    },
    async putIf(renderId, state, revision) {
      const key = webhookStateKey(renderId);
      try {
        return revision === 0 ? await kv.create(key, encodeWebhookState(state)) : await kv.update(key, encodeWebhookState(state), revision);
      } catch (err) {
        if (isWrongRevision(err)) return undefined;
        throw err;
      }
    },
    async put(renderId, state) {
      await whileBusUnavailable(() => kv.put(webhookStateKey(renderId), encodeWebhookState(state)), recordRetryMs);
    },
  };
}
