import type { Account, AccountEvent, OpenAccountState } from '../domain/account/account.js';
import { evolve, initialState } from '../domain/account/account.decider.js';
import type { AccountDirectory } from '../application/ports.js';

/**
 * The account read model kept in memory: folded from every account event at start, then updated
 * with each new event. A rotated key leaves the index in the same step, so it fails at once.
 */
export function memoryAccountDirectory(): AccountDirectory {
  const accounts = new Map<string, Account>();
  const byHash = new Map<string, string>();

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

  return {
    byAccessKeyHash: (hash) => open(byHash.get(hash)),
    byId: (id) => open(id),
    apply: (events) => events.forEach(apply),
  };
}
