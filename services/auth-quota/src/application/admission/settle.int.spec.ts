import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteEventStore, type EventStore } from '@app/event-store';
import { BUCKETS, Kvm } from '@app/messaging';
import { startTestBus, type TestBus } from '@app/testkit';
import { monthOf, reserve } from '../../domain/limits/account-limits.js';
import { kvLimitsStore } from '../../adapters/kv-limits-store.js';
import { eventStoreUsageJournal, usageStreamId } from '../../adapters/usage-journal.js';
import type { UsageJournal } from '../ports.js';
import { limitsAccess } from './limits-access.js';
import { settling } from './settle.js';

// Settlement against the real quota-limits bucket (nats-server 2.9) and the real usage journal (SQLite).
let bus: TestBus;
let dir: string;
let store: EventStore;

beforeAll(async () => {
  bus = await startTestBus('auth-quota-settle');
  dir = mkdtempSync(join(tmpdir(), 'settle-'));
  store = sqliteEventStore({ path: join(dir, 'events.db') });
});

afterAll(async () => {
  await store?.close();
  await bus?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The real journal, whose first `failures` writes fail as a store that is briefly unreachable would. */
const failingFirst = (journal: UsageJournal, failures: number): UsageJournal => {
  let left = failures;
  return {
    load: () => journal.load(),
    async record(...args) {
      if (left-- > 0) throw new Error('event store unreachable');
      return journal.record(...args);
    },
  };
};

describe('Settling a committed reservation', () => {
  describe('When the usage journal fails once and then works', () => {
    it('should end with the unit in the journal and nothing reported', async () => {
      const limits = kvLimitsStore(await new Kvm(bus.nc).open(BUCKETS.quotaLimits.name));
      const now = Date.now();
      const clock = { now: () => new Date(now) };
      const reported: unknown[] = [];
      const settle = settling({
        limitsAccess: limitsAccess(limits),
        clock,
        journal: failingFirst(eventStoreUsageJournal(store), 1),
        onJournalError: (err) => reported.push(err),
        journalRetryMs: 1,
      });
      const limitsOf = { rateLimitPerMinute: 10, monthlyQuota: 10, rendersInFlight: 2 };
      await limits.change('acct-journal', (s) => reserve(s, 'res-journal-1', { settler: 'job', holds: 'render' }, limitsOf, 60_000, now));

      expect(await settle.settle('acct-journal', 'res-journal-1', true, 'job')).toBe('committed');

      const events = await store.readStream(usageStreamId('acct-journal', monthOf(now)));
      expect(events.map((e) => e.id)).toEqual(['res-journal-1']);
      expect(reported).toEqual([]);
      expect((await limits.read('acct-journal')).used[monthOf(now)]).toBe(1);
    });
  });

  describe('When the usage journal keeps failing', () => {
    it('should keep the unit committed in the limits and report the failure once', async () => {
      const limits = kvLimitsStore(await new Kvm(bus.nc).open(BUCKETS.quotaLimits.name));
      const now = Date.now();
      const reported: unknown[] = [];
      const settle = settling({
        limitsAccess: limitsAccess(limits),
        clock: { now: () => new Date(now) },
        journal: failingFirst(eventStoreUsageJournal(store), 100),
        onJournalError: (err) => reported.push(err),
        journalRetryMs: 1,
      });
      await limits.change('acct-journal-down', (s) => reserve(s, 'res-journal-2', { settler: 'job', holds: 'render' }, { rateLimitPerMinute: 10, monthlyQuota: 10, rendersInFlight: 2 }, 60_000, now));

      expect(await settle.settle('acct-journal-down', 'res-journal-2', true, 'job')).toBe('committed');

      expect(reported).toHaveLength(1);
      expect(await store.readStream(usageStreamId('acct-journal-down', monthOf(now)))).toEqual([]);
      expect((await limits.read('acct-journal-down')).used[monthOf(now)]).toBe(1);
    });
  });
});
