import { AccountSecretsServiceClient, type SecretInfo as SecretInfoMessage } from '@app/proto/authquota/secrets';
import { callUnary, grpcClient } from '@app/rpc';
import type { AccountSecrets, SecretInfo } from '../application/account-secrets.js';

const toInfo = (s: SecretInfoMessage | undefined): SecretInfo => ({ name: s?.name ?? '', createdMs: s?.created_unix_ms ?? 0, updatedMs: s?.updated_unix_ms ?? 0 });

/** auth-quota's AccountSecretsService over gRPC, spread over its replicas (`addresses`); errors come back as AppErrors. */
export function grpcAccountSecrets(addresses: string): AccountSecrets & { close(): void } {
  const client = grpcClient(AccountSecretsServiceClient, addresses, { retryServices: ['authquota.v1.AccountSecretsService'] });
  return {
    async put(accountId, name, value) {
      const res = await callUnary(client, client.putSecret, { account_id: accountId, name, value });
      return { secret: toInfo(res.secret), created: res.created };
    },
    list: async (accountId) => (await callUnary(client, client.listSecrets, { account_id: accountId })).secrets.map(toInfo),
    async remove(accountId, name) {
      await callUnary(client, client.deleteSecret, { account_id: accountId, name });
    },
    close: () => client.close(),
  };
}
