import { AppError, errors, isAppError } from '@app/errors';
import type { OpenAccountState } from '../../domain/account/account.js';
import type { LimitsState } from '../../domain/limits/account-limits.js';
import type { AccountDirectory, LimitsStore } from '../ports.js';

export const unavailable = (cause: unknown) =>
  new AppError('service_unavailable', 'Quota state is unavailable; retry shortly.', { retryAfterSeconds: 2, cause });

/** The account's shared limits, changed atomically and read; a store that cannot be reached is a 503. */
export function limitsAccess(store: LimitsStore) {
  return {
    async change<R>(accountId: string, fn: (state: LimitsState) => R): Promise<R> {
      try {
        return await store.change(accountId, fn);
      } catch (err) {
        throw isAppError(err) ? err : unavailable(err);
      }
    },
    async read(accountId: string): Promise<LimitsState> {
      try {
        return await store.read(accountId);
      } catch (err) {
        throw unavailable(err);
      }
    },
  };
}

export type LimitsAccess = ReturnType<typeof limitsAccess>;

/** An open account by id, or 404. */
export const openAccountIn =
  (directory: AccountDirectory) =>
  async (accountId: string): Promise<OpenAccountState> => {
    const account = await directory.byId(accountId);
    if (!account) throw errors.notFound('The account');
    return account;
  };
