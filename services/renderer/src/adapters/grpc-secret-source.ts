import { AccountSecretsServiceClient } from '@app/proto/authquota/secrets';
import { callUnary, grpcClient } from '@app/rpc';
import type { SecretSource } from '../application/ports.js';

/**
 * The values of an account's secrets, asked of auth-quota (any replica) for each render that types one:
 * they live in this process only for that render, and are never logged nor put in a job or an event.
 */
export function grpcSecretSource(addresses: string): SecretSource & { close(): void } {
  const client = grpcClient(AccountSecretsServiceClient, addresses, { retryServices: ['authquota.v1.AccountSecretsService'] });
  return {
    async reveal(accountId, names) {
      const res = await callUnary(client, client.revealSecrets, { account_id: accountId, names: [...names] }, { failover: true });
      return new Map(res.secrets.map((s) => [s.name, s.value]));
    },
    close: () => client.close(),
  };
}
