import { setTimeout as sleep } from 'node:timers/promises';
import type { EventStore } from '@app/event-store';
import type { Account, AccountEvent, OpenAccountState } from '../domain/account/account.js';
import { evolve, initialState } from '../domain/account/account.decider.js';
import type { AccountDirectory } from '../application/ports.js';
import { readAccountEventsAfter } from './event-sourced-accounts.js';

/**
 * The account read model of one replica, folded from the account events of the shared event store and
 * kept current by reading the events after the last one applied: on every change this replica makes,
 * when another replica announces one, every second in case an announcement was missed, and before it
 * answers that it knows no such key or account (the announcement of a new one may still be on its way).
 * A rotated key leaves the index in the same step that applies the rotation, so it fails at once.
 *
 * The reads for unknown keys are spaced: a miss waits for a read that starts after it, but no sooner than
 * `missReadSpacingMs` after the last read ended, and every miss of that wait shares it. A flood of keys
 * nobody opened costs the store at most one read per spacing (5 ms: 200 reads a second), not one per
 * request (thousands in a second on SQLite); a key opened on another replica an instant ago is found at
 * its first use all the same, at most that much later, and so are the admissions batched with it.
 */
export function followedAccountDirectory(store: EventStore, opts: { missReadSpacingMs?: number } = {}): AccountDirectory {
  const missReadSpacingMs = opts.missReadSpacingMs ?? 5;
  const accounts = new Map<string, Account>();
  const byHash = new Map<string, string>();
  let position = 0;
  let reading: Promise<void> | undefined;
  let again = false;
  let lastReadEndedMs = Number.NEGATIVE_INFINITY;
  let missRead: Promise<void> | undefined;

  const apply = (event: AccountEvent) => {
    const id = event.data.accountId;
    const before = accounts.get(id) ?? initialState();
    const after = evolve(before, event);
    if (before.status === 'Open') byHash.delete(before.keys.accessKeyHash);
    if (after.status === 'Open') byHash.set(after.keys.accessKeyHash, id);
    accounts.set(id, after);
  };

  const open = (id: string | undefined): OpenAccountState | undefined => {
    const a = id === undefined ? undefined : accounts.get(id);
    return a?.status === 'Open' ? a : undefined;
  };

  const readNew = async () => {
    for (;;) {
      const page = await readAccountEventsAfter(store, position);
      page.events.forEach(apply);
      position = page.position;
      if (!page.more) return;
    }
  };

  /** One read at a time; a refresh asked during a read starts another one after it (it may have missed the change). */
  const refresh = (): Promise<void> => {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      try {
        do {
          again = false;
          await readNew();
        } while (again);
      } finally {
        reading = undefined;
        lastReadEndedMs = performance.now();
      }
    })();
    return reading;
  };

  /** Resolves once no read is under way and the spacing since the last one has passed. */
  const spaced = async () => {
    while (reading) await reading.catch(() => undefined);
    const wait = lastReadEndedMs + missReadSpacingMs - performance.now();
    if (wait > 0) await sleep(Math.ceil(wait));
  };

  /**
   * A read that starts after every miss sharing it (one already under way may have begun before their key
   * was opened), once spaced. The share ends as its read starts, in the same step (`then` runs after the
   * assignment, never within it).
   */
  const readForMisses = (): Promise<void> =>
    (missRead ??= spaced().then(() => {
      missRead = undefined;
      return refresh();
    }));

  /** Found now, or after reading what this replica has not applied yet (concurrent misses share one read). */
  const find = async (lookup: () => OpenAccountState | undefined): Promise<OpenAccountState | undefined> => {
    const known = lookup();
    if (known) return known;
    await readForMisses();
    return lookup();
  };

  return {
    byAccessKeyHash: (hash) => find(() => open(byHash.get(hash))),
    byId: (id) => find(() => open(id)),
    refresh,
  };
}
