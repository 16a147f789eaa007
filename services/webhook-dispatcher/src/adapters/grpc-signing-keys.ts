import { credentials } from '@grpc/grpc-js';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { callUnary } from '@app/rpc';
import type { SigningKeys } from '../application/ports.js';

/** Secret keys from auth-quota, asked for every delivery (a rotated key signs the very next one). */
export function grpcSigningKeys(address: string): SigningKeys & { close(): void } {
  const client = new AuthQuotaServiceClient(address, credentials.createInsecure());
  return {
    async secretOf(accountId) {
      const res = await callUnary(client, client.getSigningKey, { account_id: accountId });
      return res.secret_key;
    },
    close: () => client.close(),
  };
}
