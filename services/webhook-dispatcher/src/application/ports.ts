import type { WebhookState } from '@app/render-contracts';
import type { AttemptOutcome } from '../domain/delivery-decision.js';

/** The account's secret key (auth-quota GetSigningKey). */
export interface SigningKeys {
  secretOf(accountId: string): Promise<string>;
}

/** POSTs one attempt: SSRF-checked and pinned to the checked addresses, redirects never followed. */
export interface WebhookSender {
  send(url: string, body: string, headers: Record<string, string>): Promise<AttemptOutcome>;
}

/** Delivery state per render, shared by every dispatcher replica and shown by the status API. */
export interface DeliveryStates {
  get(renderId: string): Promise<WebhookState | undefined>;
  put(renderId: string, state: WebhookState): Promise<void>;
}

export interface Clock {
  now(): Date;
}
