import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteEventStore } from './sqlite-event-store.js';

const dir = mkdtempSync(join(tmpdir(), 'event-store-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Another thread (another connection, as another process would be) commits version 1 while holding the lock. */
const WRITER_IN_ANOTHER_THREAD = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.libsql);
const db = new Database(workerData.path);
db.exec('BEGIN IMMEDIATE');
db.prepare("INSERT INTO events (event_id, stream_id, version, type, data, metadata, recorded_at) VALUES (?, ?, 1, 'Happened', '{}', '{}', ?)")
  .run(workerData.eventId, workerData.streamId, Date.now());
parentPort.postMessage('locked');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
db.exec('COMMIT');
db.close();
`;

function holdWriteLock(path: string, streamId: string, eventId: string, holdMs: number) {
  const libsql = createRequire(import.meta.url).resolve('libsql');
  const worker = new Worker(WRITER_IN_ANOTHER_THREAD, { eval: true, workerData: { libsql, path, streamId, eventId, holdMs } });
  const locked = new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
  const done = new Promise((resolve) => worker.once('exit', resolve));
  return { locked, done };
}

describe('sqliteEventStore', () => {
  describe('When opened on a file', () => {
    it('should put the database in WAL mode', async () => {
      const path = join(dir, `${randomUUID()}.db`);
      const store = sqliteEventStore({ path });
      await store.append(`test-${randomUUID()}`, [{ type: 'Happened', data: {} }], { expectedVersion: 0 });

      const other = new Database(path);
      const mode = other.prepare('PRAGMA journal_mode').get() as { journal_mode: string };
      other.close();
      await store.close();

      expect(mode.journal_mode).toBe('wal');
    });

    it('should refuse a second event with the same stream version or id at the table level', async () => {
      const path = join(dir, `${randomUUID()}.db`);
      const store = sqliteEventStore({ path });
      const streamId = `test-${randomUUID()}`;
      const { events } = await store.append(streamId, [{ type: 'Happened', data: {} }], { expectedVersion: 0 });
      await store.close();
      const db = new Database(path);
      const insert = db.prepare(
        "INSERT INTO events (event_id, stream_id, version, type, data, metadata, recorded_at) VALUES (?, ?, ?, 'X', '{}', '{}', 0)",
      );

      const sameVersion = () => insert.run(randomUUID(), streamId, 1);
      const sameId = () => insert.run(events[0]!.id, `test-${randomUUID()}`, 1);

      expect(sameVersion).toThrow(/UNIQUE/);
      expect(sameId).toThrow(/UNIQUE/);
      db.close();
    });
  });

  describe('When another connection holds the write lock', () => {
    it('should wait for its commit, then reject an append that expected the stream not to exist', async () => {
      const path = join(dir, `${randomUUID()}.db`);
      const store = sqliteEventStore({ path });
      const [streamId, winnerId] = [`test-${randomUUID()}`, randomUUID()];
      const writer = holdWriteLock(path, streamId, winnerId, 300);
      await writer.locked;
      const started = Date.now();

      const append = store.append(streamId, [{ type: 'Happened', data: {} }], { expectedVersion: 'no_stream' });

      await expect(append).rejects.toMatchObject({ code: 'concurrency_conflict' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(200);
      expect((await store.readStream(streamId)).map((e) => e.id)).toEqual([winnerId]);
      await writer.done;
      await store.close();
    });
  });

  describe("When opened on ':memory:'", () => {
    it('should append and read back', async () => {
      const store = sqliteEventStore({ path: ':memory:' });
      const streamId = `test-${randomUUID()}`;

      await store.append(streamId, [{ type: 'Happened', data: { n: 1 } }], { expectedVersion: 'no_stream' });

      expect((await store.readStream(streamId)).map((e) => e.data)).toEqual([{ n: 1 }]);
      await store.close();
    });
  });
});
