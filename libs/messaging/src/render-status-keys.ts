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
}
