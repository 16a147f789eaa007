import { unaryHandler } from '@app/rpc';
import type { Logger } from '@app/logging';
import type { AccountConsoleServiceServer, ConsoleAccount as ConsoleAccountMessage } from '@app/proto/authquota/console';
import type { AccountConsole, ConsoleAccount } from '../../application/account-console.js';

const toMessage = ({ account, limits, keyGeneration }: ConsoleAccount): ConsoleAccountMessage => ({
  account_id: account.accountId,
  name: account.name,
  plan: account.plan,
  signature_required: account.signatureRequired,
  billing_status: account.billingStatus,
  rate_limit_per_minute: limits.rateLimitPerMinute,
  monthly_quota: limits.monthlyQuota,
  key_generation: keyGeneration,
});

/** The AccountConsoleService gRPC server (the dashboard's calls): translates messages, nothing else. */
export function accountConsoleService(deps: { console: AccountConsole; logger: Logger }): AccountConsoleServiceServer {
  const c = deps.console;
  const h = <Req, Res>(fn: (req: Req) => Promise<Res> | Res) => unaryHandler<Req, Res>(async (req) => fn(req), deps.logger);
  return {
    signIn: h(async (req) => ({ account: toMessage(await c.signIn(req.access_key, req.secret_key)) })),
    getConsoleAccount: h(async (req) => ({ account: toMessage(await c.account(req.account_id)) })),
    revealSecretKey: h(async (req) => ({ secret_key: await c.revealSecretKey(req.account_id) })),
    rotateConsoleKeys: h(async (req) => {
      const { keys, console } = await c.rotateKeys(req.account_id);
      return { access_key: keys.accessKey, secret_key: keys.secretKey, account: toMessage(console) };
    }),
    signPayload: h(async (req) => ({ signature: await c.sign(req.account_id, req.payload) })),
    getDailyUsage: h(async (req) => c.dailyUsage(req.account_id)),
  };
}
