import type { EventStore } from '@app/event-store';

/** Committed renders are events, so the monthly usage survives restarts. */
export interface UsageJournal {
  /** Appends one committed unit (idempotent per reservation id). */
  record(accountId: string, month: string, reservationId: string, usedBefore: number): Promise<void>;
  /** Committed usage per account and month, from every usage stream. */
  load(): Promise<{ accountId: string; month: string; used: number }[]>;
}

export const usageStreamId = (accountId: string, month: string) => `usage-${accountId}-${month}`;
const USAGE_EVENT = 'QuotaUnitUsed';

export function eventStoreUsageJournal(store: EventStore): UsageJournal {
  // Appends to one stream are chained so each carries the version the previous one produced.
  const tails = new Map<string, Promise<void>>();
  return {
    record(accountId, month, reservationId, usedBefore) {
      const stream = usageStreamId(accountId, month);
      const append = async () => {
        await store.append(
          stream,
          [{ id: reservationId, type: USAGE_EVENT, data: { accountId, month, reservationId } }],
          { expectedVersion: usedBefore },
        );
      };
      const next = (tails.get(stream) ?? Promise.resolve()).then(append, append);
      tails.set(stream, next.catch(() => undefined));
      return next;
    },
    async load() {
      const counts = new Map<string, { accountId: string; month: string; used: number }>();
      let after = 0;
      for (;;) {
        const page = await store.readAll({ after, limit: 5_000 });
        if (page.length === 0) break;
        for (const e of page) {
          if (e.type !== USAGE_EVENT) continue;
          const { accountId, month } = e.data as { accountId: string; month: string };
          const key = `${accountId}:${month}`;
          const c = counts.get(key) ?? { accountId, month, used: 0 };
          c.used = Math.max(c.used, e.version);
          counts.set(key, c);
        }
        after = page[page.length - 1]!.globalPosition;
      }
      return [...counts.values()];
    },
  };
}
