import { batchedAdmissions, replicatedAuthQuotaClient } from '@app/admission-client';
import { peerReady } from '@app/rpc';
import type { AuthQuota } from '../application/ports.js';

/**
 * auth-quota over gRPC (any of its replicas, with failover), as a trusted internal caller: the account is
 * named, no key or signature is sent. The runs admitted in one turn of the event loop travel in one call.
 */
export function grpcAuthQuota(addresses: string): AuthQuota & { close(): void; ready(): Promise<void> } {
  const client = replicatedAuthQuotaClient(addresses);
  const admit = batchedAdmissions(client);
  return {
    async admitRun({ accountId, features }) {
      const res = await admit({
        access_key: '',
        account_id: accountId,
        usage: 'render',
        features,
        signed_query: '',
        body: Buffer.alloc(0),
      });
      return {
        account: { accountId: res.account?.account_id ?? accountId, plan: res.account?.plan ?? '' },
        reservationId: res.reservation_id,
      };
    },
    close: () => client.close(),
    ready: () => peerReady(client),
  };
}
