import type { EventStore } from '@app/event-store';
import type { DailyUsageSource } from '../application/ports.js';
import { usageStreamId } from './usage-journal.js';

/**
 * Committed renders per UTC day, read from the month's usage stream (one event per committed unit, so
 * the stream is bounded by the month's quota): the day is the one the unit was committed on.
 */
export function eventStoreDailyUsage(store: EventStore): DailyUsageSource {
  return {
    async byDay(accountId, month) {
      const days = new Map<string, number>();
      for (const e of await store.readStream(usageStreamId(accountId, month))) {
        const day = e.recordedAt.toISOString().slice(0, 10);
        days.set(day, (days.get(day) ?? 0) + 1);
      }
      return days;
    },
  };
}
