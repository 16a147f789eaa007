import type { Account, AccountEvent, OpenAccountState } from '../domain/account/account.js';

export interface Clock {
  now(): Date;
}

/** Runs an account command against its event stream and returns the new state and events. */
export interface AccountCommands {
  handle(
    accountId: string,
    command: import('../domain/account/account.js').AccountCommand,
  ): Promise<{ state: Account; events: AccountEvent[] }>;
}

/** The read side: open accounts by id and by access key hash. */
export interface AccountDirectory {
  byAccessKeyHash(hash: string): OpenAccountState | undefined;
  byId(accountId: string): OpenAccountState | undefined;
  apply(events: AccountEvent[]): void;
}

/** Tells every edge that an account's access key changed (edges drop cached refusals of unknown keys). */
export interface KeyChangeNotifier {
  keysChanged(accountId: string): Promise<void>;
}
