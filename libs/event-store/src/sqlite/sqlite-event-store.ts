import type Database from 'libsql';
import { appendResult, assertExpectedVersion, prepareAppend, replayedAppend, type EventToAppend } from '../append-rules.js';
import type { AppendResult, EventStore, ExpectedVersion, StoredEvent } from '../event-store.js';
import { countOption } from '../read-options.js';
import { decodeJson, encodeJson } from './json-codec.js';
import { openEventsDatabase } from './sqlite-schema.js';

interface EventRow {
  global_position: number;
  event_id: string;
  stream_id: string;
  version: number;
  type: string;
  data: string;
  metadata: string;
  recorded_at: number;
}

const EVENT_COLUMNS = 'global_position, event_id, stream_id, version, type, data, metadata, recorded_at';
const NO_LIMIT = -1;

interface PendingAppend {
  streamId: string;
  events: EventToAppend[];
  expected: ExpectedVersion;
  /** The caller named some event ids: the append may be a replay of a committed one. */
  idsGiven: boolean;
  resolve: (result: AppendResult) => void;
  reject: (err: unknown) => void;
}

/**
 * The event store on an embedded SQLite database (libsql): the default on a single machine and in tests.
 * libsql is synchronous, so appends run start to finish in a `BEGIN IMMEDIATE` transaction that never spans
 * an `await`: callers in this process are serialised, and other connections (another store on the same
 * file, another process) wait for the write lock, then see the committed version.
 * Group commit: the appends asked for during one turn of the event loop share one transaction (one write to
 * disk). Each is checked and written exactly as if it ran alone, in the order asked, and fails alone when its
 * own check fails; a failure of the database itself rolls the whole group back and fails every append in it.
 */
export function sqliteEventStore(opts: { path: string }): EventStore {
  const db = openEventsDatabase(opts.path);
  const sql = statements(db);
  let queued: PendingAppend[] = [];

  const appendOne = ({ streamId, events: toAppend, expected, idsGiven }: PendingAppend): AppendResult => {
    // Ids the store just generated (random UUIDs) cannot be committed already.
    if (idsGiven) {
      const committed = sql.eventsByIds.all(JSON.stringify(toAppend.map((e) => e.id))) as EventRow[];
      const replay = replayedAppend(streamId, toAppend, expected, committed.map(toStoredEvent));
      if (replay) return appendResult(replay);
    }

    const { current } = sql.streamVersion.get(streamId) as { current: number };
    assertExpectedVersion(streamId, current, expected);
    const recordedAt = new Date();
    const stored = toAppend.map((e, i): StoredEvent => {
      const version = current + i + 1;
      const row = [e.id, streamId, version, e.type, encodeJson(e.data), encodeJson(e.metadata), recordedAt.getTime()];
      const { lastInsertRowid } = sql.insertEvent.run(...row);
      return { ...e, streamId, version, globalPosition: Number(lastInsertRowid), recordedAt };
    });
    return appendResult(stored);
  };

  /**
   * Each append of several events inside its own savepoint, so a failed one leaves nothing behind (an append
   * of one event writes one row, or fails before writing it).
   */
  const appendGroup = db.transaction((group: PendingAppend[]): (() => void)[] =>
    group.map((a) => {
      const savepoint = a.events.length > 1;
      if (savepoint) db.exec('SAVEPOINT append');
      try {
        const result = appendOne(a);
        if (savepoint) db.exec('RELEASE append');
        return () => a.resolve(result);
      } catch (err) {
        if (savepoint) db.exec('ROLLBACK TO append; RELEASE append');
        return () => a.reject(err);
      }
    }),
  );

  /** Commits the queued group, then settles each of its appends (all rejected if the transaction fails). */
  const commitQueued = () => {
    const group = queued;
    queued = [];
    if (group.length === 0) return;
    let settle: (() => void)[];
    try {
      settle = appendGroup.immediate(group);
    } catch (err) {
      for (const a of group) a.reject(err);
      return;
    }
    for (const s of settle) s();
  };

  return {
    async append(streamId, events, { expectedVersion }) {
      const toAppend = prepareAppend(streamId, events, expectedVersion);
      return new Promise<AppendResult>((resolve, reject) => {
        if (queued.length === 0) setImmediate(commitQueued);
        const idsGiven = events.some((e) => e.id !== undefined);
        queued.push({ streamId, events: toAppend, expected: expectedVersion, idsGiven, resolve, reject });
      });
    },

    async readStream(streamId, { fromVersion } = {}) {
      const from = countOption('fromVersion', fromVersion, 1);
      return (sql.streamEvents.all(streamId, from) as EventRow[]).map(toStoredEvent);
    },

    async readAll({ after, limit } = {}) {
      const rows = sql.eventsAfter.all(countOption('after', after, 0), countOption('limit', limit, NO_LIMIT));
      return (rows as EventRow[]).map(toStoredEvent);
    },

    async saveSnapshot(streamId, version, state) {
      sql.upsertSnapshot.run(streamId, countOption('version', version, 0), encodeJson(state), Date.now());
    },

    async loadSnapshot(streamId) {
      const row = sql.snapshot.get(streamId) as { version: number; state: string } | undefined;
      return row ? { version: row.version, state: decodeJson(row.state) } : null;
    },

    async pendingOutbox(limit) {
      return (sql.pendingOutbox.all(countOption('limit', limit, 0)) as EventRow[]).map(toStoredEvent);
    },

    async markPublished(eventIds) {
      if (eventIds.length > 0) sql.markPublished.run(Date.now(), JSON.stringify(eventIds));
    },

    async close() {
      commitQueued();
      if (db.open) db.close();
    },
  };
}

function statements(db: Database.Database) {
  return {
    eventsByIds: db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE event_id IN (SELECT value FROM json_each(?))`),
    streamVersion: db.prepare('SELECT coalesce(max(version), 0) AS current FROM events WHERE stream_id = ?'),
    insertEvent: db.prepare(
      `INSERT INTO events (event_id, stream_id, version, type, data, metadata, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    streamEvents: db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND version >= ? ORDER BY version`,
    ),
    eventsAfter: db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?`,
    ),
    pendingOutbox: db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE published_at IS NULL ORDER BY global_position LIMIT ?`,
    ),
    markPublished: db.prepare(
      'UPDATE events SET published_at = ? WHERE published_at IS NULL AND event_id IN (SELECT value FROM json_each(?))',
    ),
    upsertSnapshot: db.prepare(
      `INSERT INTO snapshots (stream_id, version, state, saved_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (stream_id) DO UPDATE
       SET version = excluded.version, state = excluded.state, saved_at = excluded.saved_at
       WHERE excluded.version >= snapshots.version`,
    ),
    snapshot: db.prepare('SELECT version, state FROM snapshots WHERE stream_id = ?'),
  };
}

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    version: row.version,
    type: row.type,
    data: decodeJson(row.data),
    metadata: decodeJson(row.metadata) as Record<string, unknown>,
    globalPosition: row.global_position,
    recordedAt: new Date(row.recorded_at),
  };
}
