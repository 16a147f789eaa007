import { type KV } from '@app/messaging';
import { decodeWebhookState, encodeWebhookState, webhookStateKey } from '@app/render-contracts';
import type { DeliveryStates } from '../application/ports.js';

/** Delivery state in the render-status KV bucket (`webhook.<render id>`), where the status API reads it. */
export function kvDeliveryStates(kv: KV): DeliveryStates {
  return {
    async get(renderId) {
      const entry = await kv.get(webhookStateKey(renderId));
      return entry && entry.operation === 'PUT' ? decodeWebhookState(entry.value) : undefined;
    },
    async put(renderId, state) {
      await kv.put(webhookStateKey(renderId), encodeWebhookState(state));
    },
  };
}
