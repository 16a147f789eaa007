import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sqliteEventStore, type EventStore } from '@app/event-store';
import { decide } from '../domain/task/task.decider.js';
import type { TaskDefinition } from '../domain/task/task.js';
import { eventStoreTaskStreams } from './event-store-task-streams.js';

// Task streams keep the last state of each task in memory. Two "replicas" here are two stores (connections)
// on one SQLite file, each with its own task streams: what one remembers, the other may have moved on.

let dir: string;
let opened: EventStore[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'scheduler-streams-'));
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const definition: TaskDefinition = {
  name: 'streams',
  api: 'screenshot',
  query: 'url=https://example.com',
  frequency: 'every_minute',
  crontab: '* * * * *',
  timezone: 'Etc/UTC',
};
const T0 = Date.parse('2026-05-01T00:00:30Z');

function replicas(file: string) {
  const [a, b] = [0, 1].map(() => sqliteEventStore({ path: join(dir, file) }));
  opened.push(a!, b!);
  return { store: a!, a: eventStoreTaskStreams(a!, { snapshotEvery: 3 }), b: eventStoreTaskStreams(b!, { snapshotEvery: 3 }) };
}

const create = (taskId: number) => (s: Parameters<typeof decide>[1]) =>
  decide({ type: 'CreateTask', data: { taskId, accountId: 'acc', definition, enabled: true }, metadata: { now: T0 } }, s);
const startRun = (taskId: number, dueAt: number) => (s: Parameters<typeof decide>[1]) =>
  decide({ type: 'StartRun', data: { runId: `${taskId}-${dueAt / 1000}`, dueAt }, metadata: { now: dueAt } }, s);

describe('eventStoreTaskStreams', () => {
  describe('When another replica disabled the task after this one last read it', () => {
    it('should decide a claim on the stream as it is, and claim nothing', async () => {
      const { a, b } = replicas('disabled.db');
      await a.change(1, create(1));
      await a.change(1, startRun(1, T0 + 30_000));
      await b.change(1, (s) => decide({ type: 'UpdateTask', data: { taskId: 1, accountId: 'acc', enabled: false }, metadata: { now: T0 + 40_000 } }, s));

      const claim = await a.change(1, startRun(1, T0 + 90_000));

      expect(claim.events).toEqual([]);
      expect((await a.load(1)).state).toMatchObject({ enabled: false, lastDueAt: T0 + 30_000 });
    });
  });

  describe('When another replica created the task after this one read it as absent', () => {
    it('should find it on the next change', async () => {
      const { a, b } = replicas('created.db');
      expect((await a.load(2)).state.status).toBe('Absent');
      await b.change(2, create(2));

      const claim = await a.change(2, startRun(2, T0 + 30_000));

      expect(claim.events.map((e) => e.type)).toEqual(['TaskRunStarted']);
      expect(claim.version).toBe(2);
    });
  });

  describe('When one replica changes one task many times at once', () => {
    it('should apply each change once, in turn, without running out of retries', async () => {
      const { store, a } = replicas('many.db');
      await a.change(3, create(3));

      const claims = await Promise.all(Array.from({ length: 40 }, (_, i) => a.change(3, startRun(3, T0 + 30_000 + i * 60_000))));

      expect(claims.every((c) => c.events.length === 1)).toBe(true);
      expect((await store.readStream('task-3')).map((e) => e.version)).toEqual(Array.from({ length: 41 }, (_, i) => i + 1));
      // Read afresh (from a snapshot and the events after it), the state is the one remembered.
      const fresh = eventStoreTaskStreams(store, { snapshotEvery: 3 });
      expect(await fresh.load(3)).toEqual(await a.load(3));
    });
  });
});
