import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { grpcClient } from '@app/rpc';

/**
 * Calls to auth-quota spread over every replica (round robin over the addresses) and, when a replica is
 * gone (UNAVAILABLE: refused or dropped connection), retried on another one within the call's deadline.
 * Every call may be retried: admissions and reservations carry an id of the caller's choosing, so a
 * retry is recognised and counted once.
 */
export function replicatedAuthQuotaClient(addresses: string): AuthQuotaServiceClient {
  return grpcClient(AuthQuotaServiceClient, addresses, { retryServices: ['authquota.v1.AuthQuotaService'] });
}
