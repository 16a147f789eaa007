import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { EventStore, NewEvent } from './event-store.js';
import { commandHandler } from './handle-command.js';
import { sqliteEventStore } from './sqlite/sqlite-event-store.js';

// Two "processes" are two stores (connections) on one SQLite file, each with its own handler: what one
// remembers, the other may have moved on from.

type Counted = NewEvent<'Incremented', { by: number }>;
const counter = {
  initialState: () => ({ total: 0, count: 0 }),
  evolve: (s: { total: number; count: number }, e: Counted) => ({ total: s.total + e.data.by, count: s.count + 1 }),
};
/** Adds `by` unless the total has reached `limit`. */
const add = (by: number, limit = Number.POSITIVE_INFINITY) => (s: { total: number }): Counted[] =>
  s.total >= limit ? [] : [{ type: 'Incremented', data: { by } }];

const dir = mkdtempSync(join(tmpdir(), 'command-handler-'));
const opened: EventStore[] = [];
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

function open(file: string): EventStore {
  const store = sqliteEventStore({ path: join(dir, file) });
  opened.push(store);
  return store;
}

describe('commandHandler', () => {
  describe('When another process appended after this one cached the stream', () => {
    it('should decide on the stream as it is, not on the state it remembers', async () => {
      const [one, two] = [open('stale.db'), open('stale.db')];
      const a = commandHandler(one, counter, { cachedStreams: 10 });
      const b = commandHandler(two, counter, { cachedStreams: 10 });
      await a.handle('s-1', add(5));
      await b.handle('s-1', add(5));

      // Remembered total 5 would add; the stream's total 10 is at the limit.
      const result = await a.handle('s-1', add(5, 10));

      expect(result.newEvents).toEqual([]);
      expect(await a.load('s-1')).toEqual({ state: { total: 10, count: 2 }, version: 2 });
      expect((await one.readStream('s-1')).map((e) => e.version)).toEqual([1, 2]);
    });
  });

  describe('When a stream is cached and unchanged', () => {
    it('should append without reading the stream', async () => {
      const store = open('cached.db');
      const handler = commandHandler(store, counter, { cachedStreams: 10 });
      await handler.handle('s-2', add(1));
      const readStream = vi.spyOn(store, 'readStream');

      const result = await handler.handle('s-2', add(2));

      expect(result).toMatchObject({ nextExpectedVersion: 2, newState: { total: 3 } });
      expect(readStream).not.toHaveBeenCalled();
    });
  });

  describe('When many commands on one stream come at once from one process', () => {
    it('should apply each once, in turn, without conflicts', async () => {
      const store = open('turns.db');
      const handler = commandHandler(store, counter, { cachedStreams: 10, retries: 0 });

      await Promise.all(Array.from({ length: 40 }, () => handler.handle('s-3', add(1))));

      expect((await store.readStream('s-3')).map((e) => e.version)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    });
  });

  describe('When commands of two processes race on one stream', () => {
    it('should settle the conflicts by re-deciding, each command applied once', async () => {
      const [one, two] = [open('race.db'), open('race.db')];
      const [a, b] = [commandHandler(one, counter, { cachedStreams: 10 }), commandHandler(two, counter)];

      await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).handle('s-4', add(1))));

      expect(await commandHandler(one, counter).load('s-4')).toEqual({ state: { total: 6, count: 6 }, version: 6 });
    });
  });

  describe('When snapshots are taken every 3 events', () => {
    it('should fold a stream not in memory from its latest snapshot', async () => {
      const store = open('snapshots.db');
      const writer = commandHandler(store, counter, { snapshotEvery: 3, snapshotSchema: 2 });
      for (let i = 0; i < 7; i++) await writer.handle('s-5', add(1));
      expect(await store.loadSnapshot('s-5')).toEqual({ version: 6, state: { schema: 2, state: { total: 6, count: 6 } } });
      const readStream = vi.spyOn(store, 'readStream');

      const loaded = await commandHandler(store, counter, { snapshotEvery: 3, snapshotSchema: 2 }).load('s-5');

      expect(loaded).toEqual({ state: { total: 7, count: 7 }, version: 7 });
      expect(readStream).toHaveBeenCalledWith('s-5', { fromVersion: 7 });
    });

    it('should ignore a snapshot of another schema and fold the stream from its start', async () => {
      const store = open('schema.db');
      const writer = commandHandler(store, counter, { snapshotEvery: 3, snapshotSchema: 1 });
      for (let i = 0; i < 4; i++) await writer.handle('s-6', add(1));
      const readStream = vi.spyOn(store, 'readStream');

      const loaded = await commandHandler(store, counter, { snapshotEvery: 3, snapshotSchema: 2 }).load('s-6');

      expect(loaded).toEqual({ state: { total: 4, count: 4 }, version: 4 });
      expect(readStream).toHaveBeenCalledWith('s-6', { fromVersion: 1 });
    });
  });

  describe('When metadata is given', () => {
    it('should record it on each appended event', async () => {
      const store = open('metadata.db');
      const handler = commandHandler(store, counter, { metadata: () => ({ traceparent: '00-abc-def-01' }) });

      await handler.handle('s-7', add(1));

      expect((await store.readStream('s-7'))[0]!.metadata).toEqual({ traceparent: '00-abc-def-01' });
    });
  });
});
