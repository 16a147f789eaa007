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
 */
export function followedAccountDirectory(store: EventStore): AccountDirectory {
  const accounts = new Map<string, Account>();
  const byHash = new Map<string, string>();
  let position = 0;
  let reading: Promise<void> | undefined;
  let again = false;

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
      }
    })();
    return reading;
  };

  /** Found now, or after reading what this replica has not applied yet (concurrent misses share one read). */
  const find = async (lookup: () => OpenAccountState | undefined): Promise<OpenAccountState | undefined> => {
    const known = lookup();
    if (known) return known;
    await refresh();
    return lookup();
  };

  return {
    byAccessKeyHash: (hash) => find(() => open(byHash.get(hash))),
    byId: (id) => find(() => open(id)),
    refresh,
  };
}
