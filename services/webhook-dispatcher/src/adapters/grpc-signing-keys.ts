import { replicatedAuthQuotaClient } from '@app/admission-client';
import { callUnary, peerReady } from '@app/rpc';
import type { SigningKeys } from '../application/ports.js';

/**
 * Secret keys from auth-quota (any of its replicas), asked for every delivery (a rotated key signs the
 * very next one).
 */
export function grpcSigningKeys(addresses: string): SigningKeys & { close(): void; ready(): Promise<void> } {
  const client = replicatedAuthQuotaClient(addresses);
  return {
    async secretOf(accountId) {
      const res = await callUnary(client, client.getSigningKey, { account_id: accountId }, { failover: true });
      return res.secret_key;
    },
    close: () => client.close(),
    ready: () => peerReady(client),
  };
}
