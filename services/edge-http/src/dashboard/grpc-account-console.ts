import { replicatedAuthQuotaClient } from '@app/admission-client';
import { callUnary, grpcClient } from '@app/rpc';
import { AccountConsoleServiceClient, type ConsoleAccount as ConsoleAccountMessage } from '@app/proto/authquota/console';
import type { AccountConsole, ConsoleAccount } from './ports.js';

const toAccount = (a: ConsoleAccountMessage | undefined): ConsoleAccount => {
  if (!a) throw new Error('auth-quota answered without an account');
  return {
    accountId: a.account_id,
    name: a.name,
    plan: a.plan,
    signatureRequired: a.signature_required,
    billingStatus: a.billing_status,
    rateLimitPerMinute: a.rate_limit_per_minute,
    monthlyQuota: a.monthly_quota,
    keyGeneration: a.key_generation,
  };
};

/**
 * auth-quota's AccountConsoleService over gRPC, spread over its replicas
 * (`addresses`, as every client takes them); errors come back as AppErrors. Any console call may be repeated
 * on another replica (a rotation repeated answers the newest keys), so gRPC retries them when a replica is gone.
 */
export function grpcAccountConsole(addresses: string): AccountConsole & { close(): void } {
  const client = grpcClient(AccountConsoleServiceClient, addresses, { retryServices: ['authquota.v1.AccountConsoleService'] });
  const authQuota = replicatedAuthQuotaClient(addresses);
  return {
    signIn: async (accessKey, secretKey) =>
      toAccount((await callUnary(client, client.signIn, { access_key: accessKey, secret_key: secretKey })).account),
    account: async (accountId) => toAccount((await callUnary(client, client.getConsoleAccount, { account_id: accountId })).account),
    revealSecretKey: async (accountId) => (await callUnary(client, client.revealSecretKey, { account_id: accountId })).secret_key,
    async rotateKeys(accountId) {
      const res = await callUnary(client, client.rotateConsoleKeys, { account_id: accountId });
      return { accessKey: res.access_key, secretKey: res.secret_key, account: toAccount(res.account) };
    },
    async setSignatureRequired(accountId, required) {
      await callUnary(authQuota, authQuota.setSignatureRequirement, { account_id: accountId, required });
    },
    sign: async (accountId, payload) =>
      (await callUnary(client, client.signPayload, { account_id: accountId, payload: Buffer.from(payload, 'utf8') })).signature,
    dailyUsage: async (accountId) => callUnary(client, client.getDailyUsage, { account_id: accountId }),
    close() {
      client.close();
      authQuota.close();
    },
  };
}
