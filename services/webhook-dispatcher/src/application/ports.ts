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

/** A delivery state as read, with the revision a conditional write of it must name. */
export interface StoredDeliveryState {
  state: WebhookState;
  revision: number;
}

/** Delivery state per render, shared by every dispatcher replica and shown by the status API. */
export interface DeliveryStates {
  get(renderId: string): Promise<StoredDeliveryState | undefined>;
  /**
   * Writes `state` only if the stored one is still at `revision` (0: only if there is none). Returns the new
   * revision, or undefined when another writer came first.
   */
  putIf(renderId: string, state: WebhookState, revision: number): Promise<number | undefined>;
  /** Records an attempt's outcome, written again while the store is unavailable for a moment; throws past that. */
  put(renderId: string, state: WebhookState): Promise<void>;
}

export interface Clock {
  now(): Date;
}
