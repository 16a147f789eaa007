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

/** Opens the database in WAL mode (readers never block the single writer) and creates the schema. */
export function openEventsDatabase(path: string): Database.Database {
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (path !== ':memory:') db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
