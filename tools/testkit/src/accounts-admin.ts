import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { callUnary, grpcClient } from '@app/rpc';

export interface TestAccount {
  accountId: string;
  accessKey: string;
  secretKey: string;
}

/** Direct gRPC administration of auth-quota for tests (what `npm run admin` does). */
export function accountsAdmin(authQuotaAddress: string) {
  const client = grpcClient(AuthQuotaServiceClient, authQuotaAddress);
  return {
    async create(plan: string, name = 'test'): Promise<TestAccount> {
      const res = await callUnary(client, client.createAccount, { name, plan });
      return { accountId: res.account!.account_id, accessKey: res.access_key, secretKey: res.secret_key };
    },
    async rotate(accountId: string): Promise<{ accessKey: string; secretKey: string }> {
      const res = await callUnary(client, client.rotateKeys, { account_id: accountId });
      return { accessKey: res.access_key, secretKey: res.secret_key };
    },
    requireSignatures: (accountId: string, required = true) =>
      callUnary(client, client.setSignatureRequirement, { account_id: accountId, required }),
    setBilling: (accountId: string, status: 'paid' | 'unpaid') =>
      callUnary(client, client.setBillingStatus, { account_id: accountId, billing_status: status }),
    changePlan: (accountId: string, plan: string) => callUnary(client, client.changePlan, { account_id: accountId, plan }),
    usage: (accountId: string) => callUnary(client, client.getUsage, { account_id: accountId }),
    close: () => client.close(),
  };
}
