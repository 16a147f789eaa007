/**
 * The terms of a rate lease, the same for the service that grants it (auth-quota) and the one that
 * spends it (the edge); proto/authquota/v1/auth_quota.proto (AdmitRequestRequest.lease_units, RateLease)
 * states them for any other caller.
 */

/** How long a lease's units may be spent, at most (never past the rate window's end). */
export const RATE_LEASE_LIFE_MS = 1_000;

/** What a request must be for a lease to admit it (the account must also require no signature). */
export interface LeaseCandidate {
  usage: string;
  deferQuota?: boolean;
  signature?: string;
  bodySignature?: string;
}

/**
 * A render that may be a cache hit (its quota deferred: it reserves none at admission), unsigned. Its
 * holder admits the later requests alike without auth-quota, so none of them may need a check only
 * auth-quota makes (a signature) or cost what a lease does not count (quota).
 */
export const leaseEligible = (r: LeaseCandidate): boolean =>
  r.usage === 'render' && r.deferQuota === true && !r.signature && !r.bodySignature;
