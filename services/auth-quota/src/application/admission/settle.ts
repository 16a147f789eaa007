import { restoreUsage, settle, type SettleResult, type Settler } from '../../domain/limits/account-limits.js';
import type { Clock, UsageJournal } from '../ports.js';
import type { LimitsAccess } from './limits-access.js';

/** Attempts of one journal write, and the wait before the first retry (doubled each time). */
const JOURNAL_ATTEMPTS = 5;
const JOURNAL_RETRY_MS = 50;

/**
 * Settlement of reservations from their renders' outcomes: committed in the shared limits (the one count
 * of committed usage) and then journaled, or released. A journal write that fails is retried; one that
 * still fails is reported (the unit stays committed in the limits).
 */
export function settling(deps: {
  limitsAccess: LimitsAccess;
  clock: Clock;
  journal: UsageJournal;
  onJournalError?: (err: unknown) => void;
  /** The wait before a journal write's first retry. */
  journalRetryMs?: number;
}) {
  const { change, read } = deps.limitsAccess;
  const retryMs = deps.journalRetryMs ?? JOURNAL_RETRY_MS;

  const journal = async (accountId: string, month: string, reservationId: string) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await deps.journal.record(accountId, month, reservationId);
      } catch (err) {
        if (attempt >= JOURNAL_ATTEMPTS) return deps.onJournalError?.(err);
        await new Promise((r) => setTimeout(r, retryMs * 2 ** (attempt - 1)));
      }
    }
  };

  return {
    /**
     * Ends a reservation as told by `by` (its render job's outcome, or its holder's answer), when `by` is
     * the settler it was recorded with: committed (and journaled) on success, released otherwise.
     * Repeating a settlement changes nothing; an unknown reservation is reported to the caller.
     */
    async settle(accountId: string, reservationId: string, succeeded: boolean, by: Settler): Promise<SettleResult> {
      const nowMs = deps.clock.now().getTime();
      const { result, month } = await change(accountId, (state) => {
        const reservedIn = Object.hasOwn(state.open, reservationId) ? state.open[reservationId]!.month : undefined;
        return { result: settle(state, reservationId, succeeded, by, nowMs), month: reservedIn };
      });
      if (result === 'committed' && month) await journal(accountId, month, reservationId);
      return result;
    },

    /** Carries committed usage from the journal into the shared limits where they lack it (at start). */
    async restoreUsage(entries: { accountId: string; month: string; used: number }[]): Promise<void> {
      for (const { accountId, month, used } of entries) {
        const state = await read(accountId);
        if ((state.used[month] ?? 0) >= used) continue;
        await change(accountId, (s) => restoreUsage(s, month, used));
      }
    },
  };
}
