import { MongoServerError, type Db, type MongoClient } from 'mongodb';

/** One document per event; `_id` is the global position, handed out by the `counters` document. */
export interface EventDocument {
  _id: number;
  eventId: string;
  streamId: string;
  version: number;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  recordedAt: Date;
  /** The outbox marker: present (true) until the event is published, written in the same insert. */
  outboxPending?: true;
  publishedAt?: Date;
}

export interface SnapshotDocument {
  _id: string;
  version: number;
  state: unknown;
  savedAt: Date;
}

export interface CounterDocument {
  _id: string;
  seq: number;
}

export const GLOBAL_POSITION_COUNTER = 'events';
const DUPLICATE_KEY = 11000;

export function eventStoreCollections(db: Db) {
  return {
    events: db.collection<EventDocument>('events'),
    snapshots: db.collection<SnapshotDocument>('snapshots'),
    counters: db.collection<CounterDocument>('counters'),
  };
}

/** Transactions, which the append needs, exist only on a replica set (or through mongos). */
export async function assertTransactionsSupported(client: MongoClient): Promise<void> {
  const hello = await client.db('admin').command({ hello: 1 });
  if (!hello['setName'] && hello['msg'] !== 'isdbgrid') {
    throw new Error(
      'The MongoDB event store needs transactions: connect to a replica set (a single-node one will do) ' +
        'or a sharded cluster.',
    );
  }
}

/** Creates the indexes and the global position counter; safe to run concurrently and on every start. */
export async function ensureEventStoreSchema(db: Db): Promise<void> {
  const { events, counters } = eventStoreCollections(db);
  await events.createIndexes([
    { key: { streamId: 1, version: 1 }, name: 'stream_version', unique: true },
    { key: { eventId: 1 }, name: 'event_id', unique: true },
    { key: { outboxPending: 1, _id: 1 }, name: 'outbox_pending', partialFilterExpression: { outboxPending: true } },
  ]);
  await counters
    .updateOne({ _id: GLOBAL_POSITION_COUNTER }, { $setOnInsert: { seq: 0 } }, { upsert: true })
    .catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err; // another process created it first
    });
}

export function isDuplicateKey(err: unknown): err is MongoServerError {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}
