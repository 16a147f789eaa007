import type { OpenAccountState } from '../../domain/account/account.js';
import type { QuotaUsage, RateDecision, Settler } from '../../domain/limits/account-limits.js';

/** What a request does, which decides what it costs. */
export type Usage = 'render' | 'task_create' | 'task_other' | 'read';

export interface AdmitInput {
  accessKey: string;
  /** Set by trusted internal callers (scheduled runs) instead of a key. */
  accountId?: string;
  usage: Usage;
  /** Admit a render without reserving quota (it may be a cache hit); `reserve` follows if it renders. */
  deferQuota?: boolean;
  features: string[];
  signature?: string;
  signedQuery: string;
  bodySignature?: string;
  body: Uint8Array;
  /** Chosen by the caller so a retry on another replica is recognised; the reservation's id. */
  admissionId?: string;
  /** Units of a rate lease the caller (an edge) asks for, to admit later requests like this one itself. */
  leaseUnits?: number;
  /** Who ends the reservation this admission makes (default `job`: its render job's outcome). */
  settledBy?: Settler;
}

/**
 * Units of the account's current rate window, counted already, that the holder may spend on later
 * requests like the admitted one for `validMs`; what it does not spend goes back with `returnLease`.
 */
export interface RateLease {
  /** The admission's id. */
  id: string;
  units: number;
  validMs: number;
}

export interface Admitted {
  account: OpenAccountState;
  rateLimit: RateDecision;
  reservationId?: string;
  /** Granted when asked for and the request qualifies; `rateLimit` counts its units as used. */
  lease?: RateLease;
}

export interface AccountUsage {
  usage: QuotaUsage;
  rateLimit: RateDecision;
  renders: { limit: number; inFlight: number };
}
