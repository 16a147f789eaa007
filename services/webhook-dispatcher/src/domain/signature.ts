import { createHmac } from 'node:crypto';

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'x-service-signature': string;
}

/**
 * Signs one delivery attempt (decisions: Async and webhooks), keyed with the account's secret key as
 * bytes: Standard Webhooks (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`; verify with the
 * libraries' raw-secret form) and `X-Service-Signature`, the lowercase hex HMAC-SHA256 of the raw body.
 * The id stays the same on every attempt; the timestamp is the attempt's.
 */
export function signDelivery(secret: string, webhookId: string, timestampSeconds: number, body: string): SignedHeaders {
  const key = Buffer.from(secret, 'utf8');
  const standard = createHmac('sha256', key).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64');
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${standard}`,
    'x-service-signature': createHmac('sha256', key).update(body).digest('hex'),
  };
}
