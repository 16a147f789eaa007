import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '@app/errors';
import type { OpenAccountState } from '../domain/account/account.js';
import type { Plan, PlanLimits } from '../domain/account/plans.js';
import { hmacHex } from '../domain/account/signature.js';
import { daysOfMonthSoFar, type DayUsage } from '../domain/limits/daily-usage.js';
import { monthOf } from '../domain/limits/account-limits.js';
import { hashKey } from '../domain/account/keys.js';
import type { AccountAdmin } from './account-admin.js';
import type { Admission } from './admission.js';
import type { AccountDirectory, Clock, DailyUsageSource } from './ports.js';

export interface ConsoleAccount {
  account: OpenAccountState;
  limits: PlanLimits;
  /** Changes with every key rotation; derived from the access key's hash, so it reveals nothing. */
  keyGeneration: string;
}

const KEYS_INVALID = 'The access key and secret key do not match an account. Check both and try again.';

export const keyGenerationOf = (accessKeyHash: string): string =>
  createHash('sha256').update(`key-generation:${accessKeyHash}`).digest('base64url').slice(0, 22);

/** Constant-time equality of two strings of any length (each is hashed first). */
const sameSecret = (a: string, b: string): boolean =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/** Use cases of the account dashboard: sign-in with both keys, the secret on demand, rotation, signing, usage by day. */
export function accountConsole(deps: {
  directory: AccountDirectory;
  admission: Admission;
  admin: AccountAdmin;
  limits: Record<Plan, PlanLimits>;
  dailyUsage: DailyUsageSource;
  clock: Clock;
}) {
  const { directory, admission, admin } = deps;

  const describe = (account: OpenAccountState): ConsoleAccount => ({
    account,
    limits: deps.limits[account.plan],
    keyGeneration: keyGenerationOf(account.keys.accessKeyHash),
  });

  const open = async (accountId: string): Promise<OpenAccountState> => {
    const account = await directory.byId(accountId);
    if (!account) throw new AppError('session_expired', 'The account no longer exists.');
    return account;
  };

  return {
    /**
     * Both keys of one account, or keys_invalid. A sign-in spends nothing of the account's rate limit or
     * quota (a wrong guess must never lock the owner's API out): failed sign-ins are throttled by the edge,
     * per access key and client address.
     */
    async signIn(accessKey: string, secretKey: string): Promise<ConsoleAccount> {
      const account = accessKey ? await directory.byAccessKeyHash(hashKey(accessKey)) : undefined;
      if (!account || !secretKey || !sameSecret(await admission.signingKey(account.accountId), secretKey)) {
        throw new AppError('keys_invalid', KEYS_INVALID);
      }
      return describe(account);
    },

    account: async (accountId: string): Promise<ConsoleAccount> => describe(await open(accountId)),

    revealSecretKey: async (accountId: string): Promise<string> => admission.signingKey((await open(accountId)).accountId),

    async rotateKeys(accountId: string) {
      const keys = await admin.rotateKeys((await open(accountId)).accountId);
      return { keys, console: { ...describe(await open(accountId)), keyGeneration: keyGenerationOf(hashKey(keys.accessKey)) } };
    },

    sign: async (accountId: string, payload: Uint8Array): Promise<string> =>
      hmacHex(await admission.signingKey((await open(accountId)).accountId), payload),

    async dailyUsage(accountId: string): Promise<{ month: string; days: DayUsage[] }> {
      await open(accountId);
      const nowMs = deps.clock.now().getTime();
      const month = monthOf(nowMs);
      return { month, days: daysOfMonthSoFar(nowMs, await deps.dailyUsage.byDay(accountId, month)) };
    },
  };
}

export type AccountConsole = ReturnType<typeof accountConsole>;
