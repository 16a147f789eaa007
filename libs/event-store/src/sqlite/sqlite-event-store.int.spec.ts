import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteEventStore } from './sqlite-event-store.js';

const dir = mkdtempSync(join(tmpdir(), 'event-store-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
