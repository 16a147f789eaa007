import { credentials } from '@grpc/grpc-js';
import { batchedAdmissions } from '@app/admission-client';
import { callUnary } from '@app/rpc';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import type { AuthQuota } from '../application/ports.js';

/**
 * auth-quota over gRPC, as a trusted internal caller: the account is named, no key or signature is sent.
 * The runs admitted in one turn of the event loop (a minute's due runs) travel in one call.
 */
export function grpcAuthQuota(address: string): AuthQuota & { close(): void } {
  const client = new AuthQuotaServiceClient(address, credentials.createInsecure());
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
    async commit(reservationId) {
      await callUnary(client, client.commitQuota, { reservation_id: reservationId });
    },
    async release(reservationId) {
      await callUnary(client, client.releaseQuota, { reservation_id: reservationId });
    },
    close: () => client.close(),
  };
}
