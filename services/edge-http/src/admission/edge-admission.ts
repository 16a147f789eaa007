import type { Admitter } from '../application/ports.js';
import type { AuthQuotaClient } from './auth-quota-client.js';
import { rateLeases, type RateLeaseOptions } from './rate-leases.js';
import { refusedKeysCache } from './refused-keys.js';

/** Refused keys remembered at once, at most (past it the memory starts over). */
const MAX_REFUSED_KEYS = 100_000;

export interface EdgeAdmission {
  /** The hit path's one seam: `tryNow` (a rate lease), else `admit` (auth-quota, through the refused keys). */
  admitter: Admitter;
  /** Any account's keys changed: every remembered refusal is forgotten (a new key may have been refused before it existed). */
  keysChanged(): void;
  /** Any change of an account (keys, plan, billing, signatures): its leases are dropped, their unspent units given back. */
  accountChanged(accountId: string): void;
  /** Units held in leases now (metrics, tests). */
  heldUnits(): number;
  /** Stops the lease sweep and gives every unspent unit back. */
  close(): Promise<void>;
}

/**
 * Admission at the edge, in order: a rate lease admits a busy key's possible cache hits here and now
 * (rate-leases.ts); floods of bad keys are answered from the memory of refused keys (refused-keys.ts);
 * every other request is admitted by auth-quota (grpc-auth-quota.ts, batched per turn of the event loop).
 */
export function edgeAdmission(
  client: AuthQuotaClient,
  opts: { refusedKeyTtlMs: number } & Pick<Partial<RateLeaseOptions>, 'onSpent' | 'onReturnError' | 'now'>,
): EdgeAdmission {
  const refused = refusedKeysCache(client, { ttlMs: opts.refusedKeyTtlMs, maxEntries: MAX_REFUSED_KEYS, ...(opts.now ? { now: opts.now } : {}) });
  const leases = rateLeases(refused.authQuota, {
    ...(opts.onSpent ? { onSpent: opts.onSpent } : {}),
    ...(opts.onReturnError ? { onReturnError: opts.onReturnError } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  });
  return {
    admitter: leases.admitter,
    keysChanged: refused.forget,
    accountChanged: leases.accountChanged,
    heldUnits: leases.heldUnits,
    close: leases.close,
  };
}
