import { WebhookDelivery } from '@app/proto/render';

/**
 * Keys and shared records of the render-status KV bucket: `render.<id>` is an asynchronous render's
 * status (written by edge-http), `webhook.<id>` the state of its webhook delivery (written by the
 * webhook-dispatcher, shown by edge-http).
 */
const SAFE = /^[A-Za-z0-9_-]{1,200}$/;

/** A KV key token for any id: as is when it is already safe, else base64url behind `=`. */
export function keyToken(id: string): string {
  return SAFE.test(id) ? id : `=${Buffer.from(id, 'utf8').toString('base64url')}`;
}

export const renderStatusKey = (renderId: string) => `render.${keyToken(renderId)}`;
export const webhookStateKey = (renderId: string) => `webhook.${keyToken(renderId)}`;
export const RENDER_STATUS_KEYS = 'render.>';
/** The lease of the one edge replica that sweeps expired results at a time. */
export const EXPIRY_SWEEP_LEASE_KEY = 'lease.expiry-sweep';

/** The state of a render's webhook delivery (the proto message WebhookDelivery, render.proto). */
export interface WebhookState {
  /** pending: attempts go on; delivered: a 2xx arrived; failed: the schedule ran out, or 410. */
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** HTTP status of the last attempt (absent for a timeout or a refused connection). */
  lastStatus?: number | undefined;
  /** Stable, generic reason of the last failure (timeout, connection_failed, target_not_allowed, http_status, gone). */
  lastError?: string | undefined;
  lastAttemptUnixMs?: number | undefined;
  nextAttemptUnixMs?: number | undefined;
  /**
   * A dispatcher claimed the next attempt and is sending it until this instant: another replica given the
   * same delivery meanwhile (a redelivery, a duplicate event) does not send it too.
   */
  sendingUntilUnixMs?: number | undefined;
}

const STATES: ReadonlySet<string> = new Set<WebhookState['state']>(['pending', 'delivered', 'failed']);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The value of `webhook.<id>`: the WebhookDelivery message's JSON. */
export function encodeWebhookState(state: WebhookState): Uint8Array {
  const message: WebhookDelivery = {
    state: state.state,
    attempts: state.attempts,
    last_status: state.lastStatus,
    last_error: state.lastError,
    last_attempt_unix_ms: state.lastAttemptUnixMs,
    next_attempt_unix_ms: state.nextAttemptUnixMs,
    sending_until_unix_ms: state.sendingUntilUnixMs,
  };
  return encoder.encode(JSON.stringify(WebhookDelivery.toJSON(message)));
}

/** A stored delivery state, or undefined when the value is not one. */
export function decodeWebhookState(value: Uint8Array): WebhookState | undefined {
  let m: WebhookDelivery;
  try {
    m = WebhookDelivery.fromJSON(JSON.parse(decoder.decode(value)));
  } catch {
    return undefined;
  }
  if (!STATES.has(m.state)) return undefined;
  return {
    state: m.state as WebhookState['state'],
    attempts: m.attempts,
    lastStatus: m.last_status,
    lastError: m.last_error,
    lastAttemptUnixMs: m.last_attempt_unix_ms,
    nextAttemptUnixMs: m.next_attempt_unix_ms,
    sendingUntilUnixMs: m.sending_until_unix_ms,
  };
}
