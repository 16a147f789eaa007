import type { AppError } from '@app/errors';
import type { Admission, AuthQuota } from '../application/ports.js';

/**
 * auth-quota as the scheduler sees it, keeping every call: admissions hand out numbered reservations;
 * `refuse` makes the next admissions of an account fail with an error of the real error table.
 * (Reservations are settled by auth-quota from render outcomes, never by the scheduler.)
 */
export function recordingAuthQuota() {
  const admitted: { accountId: string; features: string[]; reservationId: string }[] = [];
  const refusals = new Map<string, AppError>();
  let n = 0;
  const port: AuthQuota = {
    async admitRun({ accountId, features }): Promise<Admission> {
      const refusal = refusals.get(accountId);
      if (refusal) throw refusal;
      const reservationId = `res-${++n}`;
      admitted.push({ accountId, features, reservationId });
      return { account: { accountId, plan: 'scale' }, reservationId };
    },
  };
  return {
    port,
    admitted,
    refuse: (accountId: string, error: AppError) => void refusals.set(accountId, error),
    allow: (accountId: string) => void refusals.delete(accountId),
  };
}

