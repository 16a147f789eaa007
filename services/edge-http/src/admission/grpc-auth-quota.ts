import { randomUUID } from 'node:crypto';
import { batchedAdmissions, replicatedAuthQuotaClient } from '@app/admission-client';
import { callUnary, peerReady } from '@app/rpc';
import type { AdmitRequestRequest } from '@app/proto/authquota';
import type { AuthQuotaClient } from './auth-quota-client.js';

/**
 * auth-quota over gRPC, spread over its replicas (`addresses`, comma-separated) with failover; errors come
 * back as AppErrors with their stable codes. Admissions are batched per turn of the event loop.
 */
export function grpcAuthQuota(addresses: string): AuthQuotaClient & { close(): void; ready(): Promise<void> } {
  const client = replicatedAuthQuotaClient(addresses);
  const admit = batchedAdmissions(client);
  return {
    async admit(req) {
      const message: AdmitRequestRequest = {
        access_key: req.accessKey,
        account_id: req.accountId,
        usage: req.usage,
        defer_quota: req.deferQuota,
        features: req.features,
        signature: req.signature,
        signed_query: req.signedQuery,
        body_signature: req.bodySignature,
        body: Buffer.from(req.body),
        lease_units: req.leaseUnits,
        settled_by: req.settledBy,
      };
      const res = await admit(message);
      return {
        account: { accountId: res.account?.account_id ?? '', plan: res.account?.plan ?? '' },
        rateLimit: {
          limit: res.rate_limit?.limit ?? 0,
          remaining: res.rate_limit?.remaining ?? 0,
          resetUnix: res.rate_limit?.reset_unix ?? 0,
        },
        reservationId: res.reservation_id,
        lease: res.lease && { id: res.lease.lease_id, units: res.lease.units, validMs: res.lease.valid_ms },
      };
    },
    async returnLease(accountId, leaseId, unused) {
      await callUnary(client, client.returnRateLease, { account_id: accountId, lease_id: leaseId, unused }, { failover: true });
    },
    async reserve(accountId, settledBy) {
      // The reservation's id is chosen here, so a call repeated on another replica reserves once.
      const asked = { account_id: accountId, reservation_id: randomUUID(), settled_by: settledBy };
      return (await callUnary(client, client.reserveQuota, asked, { failover: true })).reservation_id;
    },
    async endReservation({ accountId, reservationId, succeeded }) {
      await callUnary(client, client.endReservation, { account_id: accountId, reservation_id: reservationId, succeeded }, { failover: true });
    },
    async usage(accountId) {
      const res = await callUnary(client, client.getUsage, { account_id: accountId }, { failover: true });
      return {
        hits: { quota: res.quota, used: res.used, remaining: res.remaining },
        concurrency: {
          limit: res.rate_limit?.limit ?? 0,
          remaining: res.rate_limit?.remaining ?? 0,
          reset: res.rate_limit?.reset_unix ?? 0,
        },
        renders: { limit: res.renders_limit, in_flight: res.renders_in_flight },
      };
    },
    close: () => client.close(),
    ready: () => peerReady(client),
  };
}
