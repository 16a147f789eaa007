import type { AuthQuota } from '../application/ports.js';

/** auth-quota as the admission module calls it: the edge's port, and the return of a lease's unspent units. */
export interface AuthQuotaClient extends AuthQuota {
  /** Gives back the units of a rate lease this edge did not spend (a repeat gives nothing more). */
  returnLease(accountId: string, leaseId: string, unused: number): Promise<void>;
}
