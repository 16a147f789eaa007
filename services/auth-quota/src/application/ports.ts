import type { Account, AccountCommand, AccountEvent, OpenAccountState } from '../domain/account/account.js';
import type { LimitsState } from '../domain/limits/account-limits.js';

export interface Clock {
  now(): Date;
}

/** Runs an account command against its event stream and returns the new state and events. */
export interface AccountCommands {
  handle(accountId: string, command: AccountCommand): Promise<{ state: Account; events: AccountEvent[] }>;
}

/** The read side, shared by every replica: open accounts by id and by access key hash. */
export interface AccountDirectory {
  /**
   * The open account of an access key's hash, or of an id. One this replica does not know yet (made on
   * another replica an instant ago) is looked for again after reading the events it has not applied.
   */
  byAccessKeyHash(hash: string): Promise<OpenAccountState | undefined>;
  byId(accountId: string): Promise<OpenAccountState | undefined>;
  /** Reads the account events this replica has not applied yet (its own changes and other replicas'). */
  refresh(): Promise<void>;
}

/** Tells the other replicas (and waits for them) and every edge that an account changed. */
export interface AccountChangeNotifier {
  /** Every replica has read the change when this returns (those that answer within a short wait). */
  accountChanged(accountId: string): Promise<void>;
  /** An access key changed (opened or rotated): edges drop cached refusals of unknown keys. */
  keysChanged(accountId: string): Promise<void>;
}

/** The limits of every account, shared by every replica: each change is atomic per account. */
export interface LimitsStore {
  read(accountId: string): Promise<LimitsState>;
  /** Applies `decide` to the latest state (it mutates its argument) and stores the result atomically. `decide` may run more than once. */
  change<R>(accountId: string, decide: (state: LimitsState) => R): Promise<R>;
}

/** Committed quota units of one account and month (YYYY-MM), counted per UTC day (YYYY-MM-DD). */
export interface DailyUsageSource {
  byDay(accountId: string, month: string): Promise<Map<string, number>>;
}

/** Seals secret keys at rest and opens them to check a signature or show the key. */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

/**
 * Every committed render is also an event (an audit trail of usage and the dashboard's usage by day),
 * appended after the quota-limits bucket counted it. The bucket is the one source of committed usage
 * that admission and GET /v1/usage read; the journal is read into it only at start, where the bucket
 * lacks it (a deployment's first run with the bucket, or a bucket lost).
 */
export interface UsageJournal {
  /** Appends one committed unit; idempotent per reservation id, safe from any replica. */
  record(accountId: string, month: string, reservationId: string): Promise<void>;
  /** Committed usage per account and month, from every usage stream. */
  load(): Promise<{ accountId: string; month: string; used: number }[]>;
}
