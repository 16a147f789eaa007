import { MongoClient, type ClientSession, type TransactionOptions } from 'mongodb';
import { appendResult, assertExpectedVersion, prepareAppend, replayedAppend, type EventToAppend } from '../append-rules.js';
import { appendErrors } from '../append-errors.js';
import type { AppendResult, EventStore, ExpectedVersion, StoredEvent } from '../event-store.js';
import { countOption } from '../read-options.js';
import {
  assertTransactionsSupported,
  ensureEventStoreSchema,
  eventStoreCollections,
  GLOBAL_POSITION_COUNTER,
  isDuplicateKey,
  type EventDocument,
} from './mongo-collections.js';

const MAJORITY = { w: 'majority', journal: true } as const;
const TRANSACTION: TransactionOptions = { readConcern: { level: 'snapshot' }, writeConcern: MAJORITY };

/**
 * The event store on MongoDB (production): one document per event, unique on {streamId, version} and on
 * {eventId}. Each append is a majority-acknowledged transaction that checks the version, then takes its
 * global positions with `$inc` on one counter document. The counter serialises appenders: a concurrent
 * transaction that touches it hits a write conflict and is retried by the driver after the holder commits,
 * so positions become visible in commit order and a `readAll({ after })` reader never skips one.
 * The price is one append at a time across the store, which the service's write rate allows.
 */
export async function mongoEventStore(opts: { url: string; dbName: string }): Promise<EventStore> {
  const client = await MongoClient.connect(opts.url, {
    writeConcern: MAJORITY,
    readConcern: { level: 'majority' },
    readPreference: 'primary',
    ignoreUndefined: true,
  });
  try {
    await assertTransactionsSupported(client);
    await ensureEventStoreSchema(client.db(opts.dbName));
  } catch (err) {
    await client.close();
    throw err;
  }
  const { events, snapshots, counters } = eventStoreCollections(client.db(opts.dbName));

  async function appendInTransaction(
    session: ClientSession,
    streamId: string,
    toAppend: EventToAppend[],
    expected: ExpectedVersion,
  ): Promise<AppendResult> {
    const ids = toAppend.map((e) => e.id);
    const committed = await events.find({ eventId: { $in: ids } }, { session }).toArray();
    const replay = replayedAppend(streamId, toAppend, expected, committed.map(toStoredEvent));
    if (replay) return appendResult(replay);

    const last = await events.findOne({ streamId }, { session, sort: { version: -1 }, projection: { version: 1 } });
    const current = last?.version ?? 0;
    assertExpectedVersion(streamId, current, expected);

    const counter = await counters.findOneAndUpdate(
      { _id: GLOBAL_POSITION_COUNTER },
      { $inc: { seq: toAppend.length } },
      { session, returnDocument: 'after' },
    );
    if (!counter) throw new Error('The global position counter is missing; was the event store schema created?');
    const firstPosition = counter.seq - toAppend.length + 1;
    const recordedAt = new Date();
    const docs = toAppend.map(
      (e, i): EventDocument => ({
        _id: firstPosition + i,
        eventId: e.id,
        streamId,
        version: current + i + 1,
        type: e.type,
        data: e.data,
        metadata: e.metadata,
        recordedAt,
        outboxPending: true,
      }),
    );
    await events.insertMany(docs, { session });
    return appendResult(docs.map(toStoredEvent));
  }

  return {
    async append(streamId, newEvents, { expectedVersion }) {
      const toAppend = prepareAppend(streamId, newEvents, expectedVersion);
      try {
        return await client.withSession((session) =>
          session.withTransaction(() => appendInTransaction(session, streamId, toAppend, expectedVersion), TRANSACTION),
        );
      } catch (err) {
        // The checks run inside the transaction, so the unique indexes only fire if something bypassed them.
        if (isDuplicateKey(err)) {
          throw err.keyPattern?.['eventId']
            ? appendErrors.eventIdsReused(streamId)
            : appendErrors.concurrencyConflict(streamId, expectedVersion);
        }
        throw err;
      }
    },

    async readStream(streamId, { fromVersion } = {}) {
      const from = countOption('fromVersion', fromVersion, 1);
      const docs = await events.find({ streamId, version: { $gte: from } }, { sort: { version: 1 } }).toArray();
      return docs.map(toStoredEvent);
    },

    async readAll({ after, limit } = {}) {
      const max = countOption('limit', limit, undefined);
      if (max === 0) return [];
      const cursor = events.find({ _id: { $gt: countOption('after', after, 0) } }, { sort: { _id: 1 } });
      return (await (max === undefined ? cursor : cursor.limit(max)).toArray()).map(toStoredEvent);
    },

    async saveSnapshot(streamId, version, state) {
      const at = countOption('version', version, 0);
      try {
        await snapshots.updateOne(
          { _id: streamId, version: { $lte: at } },
          { $set: { version: at, state, savedAt: new Date() } },
          { upsert: true },
        );
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // a newer snapshot is stored: keep it
      }
    },

    async loadSnapshot(streamId) {
      const doc = await snapshots.findOne({ _id: streamId });
      return doc ? { version: doc.version, state: doc.state ?? null } : null;
    },

    async pendingOutbox(limit) {
      const max = countOption('limit', limit, 0);
      if (max === 0) return [];
      const docs = await events.find({ outboxPending: true }, { sort: { _id: 1 }, limit: max }).toArray();
      return docs.map(toStoredEvent);
    },

    async markPublished(eventIds) {
      if (eventIds.length === 0) return;
      await events.updateMany(
        { eventId: { $in: eventIds }, outboxPending: true },
        { $unset: { outboxPending: '' }, $set: { publishedAt: new Date() } },
      );
    },

    async close() {
      await client.close();
    },
  };
}

function toStoredEvent(doc: EventDocument): StoredEvent {
  return {
    id: doc.eventId,
    streamId: doc.streamId,
    version: doc.version,
    type: doc.type,
    data: doc.data ?? null,
    metadata: doc.metadata ?? {},
    globalPosition: doc._id,
    recordedAt: doc.recordedAt,
  };
}
