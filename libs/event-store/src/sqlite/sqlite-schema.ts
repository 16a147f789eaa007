import Database from 'libsql';

/**
 * One `events` table: the INTEGER PRIMARY KEY is the global position; UNIQUE(stream_id, version) and
 * UNIQUE(event_id) back up the checks done inside the append transaction. `published_at IS NULL` is the
 * outbox marker, so an event and its outbox entry are one row and are written atomically by construction.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  global_position INTEGER PRIMARY KEY,
  event_id        TEXT    NOT NULL UNIQUE,
  stream_id       TEXT    NOT NULL,
  version         INTEGER NOT NULL,
  type            TEXT    NOT NULL,
  data            TEXT    NOT NULL,
  metadata        TEXT    NOT NULL,
  recorded_at     INTEGER NOT NULL,
  published_at    INTEGER,
  UNIQUE (stream_id, version)
);
CREATE INDEX IF NOT EXISTS events_outbox_pending ON events (global_position) WHERE published_at IS NULL;
CREATE TABLE IF NOT EXISTS snapshots (
  stream_id TEXT    PRIMARY KEY,
  version   INTEGER NOT NULL,
  state     TEXT    NOT NULL,
  saved_at  INTEGER NOT NULL
);
`;

/** How long a writer waits for another connection's write lock (another process, or a second store). */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens the database in WAL mode (readers never block the single writer) and creates the schema.
 *
 * `synchronous = NORMAL`: a commit is written to the WAL (the operating system holds it) without waiting
 * for the disk, which is synced at each checkpoint. A commit survives its process being killed at any
 * instant; only an operating-system crash or a power loss can take back the last commits, as it can the
 * messages NATS JetStream's file store wrote since its last periodic sync. `FULL` (SQLite's default) synced
 * the WAL on every commit: the scheduler's thread waited on the disk for each group of appends (and each
 * outbox mark), a quarter of its busy time in a burst of monitoring runs. MongoDB (majority, journaled) is
 * the store where a commit must outlive the machine.
 */
export function openEventsDatabase(path: string): Database.Database {
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (path !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(SCHEMA);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
