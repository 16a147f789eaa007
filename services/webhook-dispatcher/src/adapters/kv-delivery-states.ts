import { webhookStateKey, type KV, type WebhookState } from '@app/messaging';
import type { DeliveryStates } from '../application/ports.js';

/** Delivery state in the render-status KV bucket (`webhook.<render id>`), where the status API reads it. */
export function kvDeliveryStates(kv: KV): DeliveryStates {
  return {
    async get(renderId) {
      const entry = await kv.get(webhookStateKey(renderId));
      if (!entry || entry.operation !== 'PUT') return undefined;
      try {
        return JSON.parse(new TextDecoder().decode(entry.value)) as WebhookState;
      } catch {
        return undefined;
      }
    },
    async put(renderId, state) {
      await kv.put(webhookStateKey(renderId), new TextEncoder().encode(JSON.stringify(state)));
    },
  };
}
