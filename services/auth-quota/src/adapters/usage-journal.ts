import { hasCode } from '@app/errors';
import type { EventStore } from '@app/event-store';
import type { UsageJournal } from '../application/ports.js';

export const usageStreamId = (accountId: string, month: string) => `usage-${accountId}-${month}`;
const USAGE_EVENT = 'QuotaUnitUsed';
const ATTEMPTS = 5;

export function eventStoreUsageJournal(store: EventStore): UsageJournal {
  return {
    async record(accountId, month, reservationId) {
      const stream = usageStreamId(accountId, month);
      const event = { id: reservationId, type: USAGE_EVENT, data: { accountId, month, reservationId } };
      // Appended at the stream's end, whatever its version: replicas append to the same stream.
      for (let attempt = 1; ; attempt++) {
        try {
          await store.append(stream, [event], { expectedVersion: 'stream_exists' });
          return;
        } catch (err) {
          if (hasCode(err, 'conflict')) return; // recorded before (a repeated settlement)
          if (!hasCode(err, 'concurrency_conflict') || attempt >= ATTEMPTS) throw err;
        }
        try {
          await store.append(stream, [event], { expectedVersion: 'no_stream' });
          return;
        } catch (err) {
          if (hasCode(err, 'conflict')) return;
          if (!hasCode(err, 'concurrency_conflict')) throw err;
        }
      }
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
