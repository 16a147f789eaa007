/** An event to append. `id` (a UUID) is generated when absent; send it to make a retried append idempotent. */
export interface NewEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
  metadata?: Record<string, unknown>;
  id?: string;
}

/** What the store adds to an event when it commits it. */
export interface StoredFields {
  id: string;
  metadata: Record<string, unknown>;
  streamId: string;
  /** 1-based position of the event in its stream. */
  version: number;
  /** Position in the whole store: increases in commit order, so `readAll({ after })` never skips an event. */
  globalPosition: number;
  recordedAt: Date;
}

export type StoredEvent<T extends string = string, D = unknown> = { type: T; data: D } & StoredFields;

/** A domain event union as stored: each member keeps its own `type`/`data` pairing. */
export type Stored<E extends NewEvent> = E extends NewEvent ? Omit<E, keyof StoredFields> & StoredFields : never;

/**
 * The version the stream must be at for an append to commit (there is deliberately no "any"):
 * a number is exact (0 = the stream must not exist), `no_stream` is 0, `stream_exists` is any version ≥ 1.
 */
export type ExpectedVersion = number | 'no_stream' | 'stream_exists';

export interface AppendResult {
  /** Version of the stream after the append: pass it as the next expected version. */
  nextExpectedVersion: number;
  /** Global position of the last appended event. */
  globalPosition: number;
  /** The events as committed (on an idempotent replay, the ones committed earlier). */
  events: StoredEvent[];
}

export interface Snapshot {
  version: number;
  state: unknown;
}

/**
 * Append-only streams of events with optimistic concurrency, global order, snapshots and an outbox.
 * Event data, metadata and snapshot state must be JSON-compatible values or Dates.
 */
export interface EventStore {
  /**
   * Appends atomically, with an outbox entry per event, if the stream is at `expectedVersion`.
   * Fails with `concurrency_conflict` when it is not. Re-sending a committed append (same event ids,
   * same expected version) succeeds without writing; reusing some committed ids fails with `conflict`.
   */
  append(streamId: string, events: NewEvent[], opts: { expectedVersion: ExpectedVersion }): Promise<AppendResult>;
  /** Events of one stream from `fromVersion` (default 1) on; [] when the stream does not exist. */
  readStream(streamId: string, opts?: { fromVersion?: number }): Promise<StoredEvent[]>;
  /** Events of every stream in global order after position `after` (default 0), at most `limit` (default all). */
  readAll(opts?: { after?: number; limit?: number }): Promise<StoredEvent[]>;
  /** Keeps the snapshot with the highest version: an older one never replaces a newer one. */
  saveSnapshot(streamId: string, version: number, state: unknown): Promise<void>;
  loadSnapshot(streamId: string): Promise<Snapshot | null>;
  /** Appended events not yet marked published, in global order. */
  pendingOutbox(limit: number): Promise<StoredEvent[]>;
  markPublished(eventIds: string[]): Promise<void>;
  close(): Promise<void>;
}
