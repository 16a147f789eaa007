import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
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

/**
 * A process that appends to one stream without pause (each append once the previous one is acknowledged) and
 * prints the version of each acknowledged one: it is killed while appending.
 */
const APPENDING_PROCESS = `
const { sqliteEventStore } = await import(process.env.STORE_MODULE);
const store = sqliteEventStore({ path: process.env.DB_PATH });
for (let version = 1; ; version++) {
  await store.append(process.env.STREAM_ID, [{ type: 'Happened', data: { version, padding: 'x'.repeat(400) } }], { expectedVersion: version - 1 });
  process.stdout.write(version + '\\n');
}
`;

/** Runs APPENDING_PROCESS until it has acknowledged `atLeast` appends, kills it (SIGKILL), and gives the last version it acknowledged. */
async function appendUntilKilled(path: string, streamId: string, atLeast: number): Promise<number> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', APPENDING_PROCESS], {
    env: { ...process.env, STORE_MODULE: new URL('../../dist/sqlite/sqlite-event-store.js', import.meta.url).href, DB_PATH: path, STREAM_ID: streamId },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  let acknowledged = 0;
  for await (const line of createInterface({ input: child.stdout })) {
    acknowledged = Number(line);
    if (acknowledged >= atLeast && !child.killed) child.kill('SIGKILL');
  }
  expect(await exited).toBe('SIGKILL');
  return acknowledged;
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

  describe('When its process is killed while appending', () => {
    it('should keep every append it acknowledged', async () => {
      const path = join(dir, `${randomUUID()}.db`);
      const streamId = `test-${randomUUID()}`;

      const acknowledged = await appendUntilKilled(path, streamId, 300);

      const store = sqliteEventStore({ path });
      const versions = (await store.readStream(streamId)).map((e) => e.version);
      await store.close();
      expect(acknowledged).toBeGreaterThanOrEqual(300);
      // Every acknowledged append, in order; at most the one in flight when the process died after it.
      expect(versions.slice(0, acknowledged)).toEqual(Array.from({ length: acknowledged }, (_, i) => i + 1));
      expect(versions.length).toBeLessThanOrEqual(acknowledged + 1);
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
