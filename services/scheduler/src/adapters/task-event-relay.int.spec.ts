import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxMessageId, sqliteEventStore, type EventStore, type StoredEvent } from '@app/event-store';
import { STREAMS, jetstream } from '@app/messaging';
import { TaskRunStartedEvent } from '@app/proto/scheduler';
import { decide } from '../domain/task/task.decider.js';
import type { TaskDefinition } from '../domain/task/task.js';
import { startTestNats, streamMessages } from '../testing/nats.js';
import { eventStoreTaskStreams } from './event-store-task-streams.js';
import { natsTaskEventPublisher } from './nats-task-event-publisher.js';
import { taskEventRelay } from './task-event-relay.js';

// The outbox relay of the scheduler against a real nats-server and a real SQLite file. A "process" is a
// store connection plus a relay; killing it between append and publish, or between publish and marking,
// is simulated by closing that connection at that point and starting a new one on the same file.

let nats: Awaited<ReturnType<typeof startTestNats>>;
let dir: string;

beforeAll(async () => {
  nats = await startTestNats();
  dir = mkdtempSync(join(tmpdir(), 'scheduler-relay-'));
});

afterAll(async () => {
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const definition: TaskDefinition = {
  name: 'relay',
  api: 'screenshot',
  query: 'url=https://example.com',
  frequency: 'every_minute',
  crontab: '* * * * *',
  timezone: 'Etc/UTC',
};

/** Appends a task's creation and `runs` claimed runs: 1 + runs events. */
async function writeTask(store: EventStore, taskId: number, runs: number): Promise<void> {
  const streams = eventStoreTaskStreams(store, { snapshotEvery: 1_000 });
  const t0 = Date.parse('2026-05-01T00:00:30Z');
  await streams.change(taskId, (s) =>
    decide({ type: 'CreateTask', data: { taskId, accountId: 'acc', definition, enabled: true }, metadata: { now: t0 } }, s),
  );
  for (let i = 1; i <= runs; i++) {
    const dueAt = t0 - 30_000 + i * 60_000;
    await streams.change(taskId, (s) => decide({ type: 'StartRun', data: { runId: `${taskId}-${dueAt / 1000}`, dueAt }, metadata: { now: dueAt } }, s));
  }
}

const publisher = () => natsTaskEventPublisher(jetstream(nats.nc));
const relayOf = (store: EventStore, publish = publisher()) =>
  taskEventRelay(store, publish, { intervalMs: 60_000, batch: 7, onError: () => undefined });

/** A store whose process dies right after publishing, before the events are marked. */
const diesBeforeMarking = (store: EventStore): EventStore => ({
  ...store,
  markPublished: async () => {
    throw new Error('process killed before marking');
  },
});

async function allEvents(path: string): Promise<StoredEvent[]> {
  const store = sqliteEventStore({ path });
  try {
    return await store.readAll();
  } finally {
    await store.close();
  }
}

describe('Task event relay', () => {
  describe('When the scheduler is killed between append and publish, or between publish and marking', () => {
    it('should put every run started at its due instant on the SCHEDULER stream exactly once, under its <stream>:<version> id', async () => {
      const path = join(dir, 'crash.db');
      let duplicatesDropped = 0;
      const countingPublisher = () => {
        const publish = publisher();
        return async (e: StoredEvent) => {
          const before = (await streamMessages(nats.nc, STREAMS.SCHEDULER.name)).length;
          await publish(e);
          const after = (await streamMessages(nats.nc, STREAMS.SCHEDULER.name)).length;
          if (after === before) duplicatesDropped++;
        };
      };

      // 1. Killed between append and publish: the events are committed, nothing was published.
      let proc = sqliteEventStore({ path });
      await writeTask(proc, 1, 5);
      await proc.close();

      // 2. A new process publishes them, then is killed before marking them.
      proc = sqliteEventStore({ path });
      await writeTask(proc, 2, 5);
      await relayOf(diesBeforeMarking(proc), countingPublisher()).flush().catch(() => undefined);
      await proc.close();

      // 3. Killed in the middle of a batch, at several points: k events published, none marked.
      for (const k of [3, 11, 1, 8]) {
        proc = sqliteEventStore({ path });
        await writeTask(proc, 10 + k, 3);
        const publish = countingPublisher();
        let published = 0;
        const dying = async (e: StoredEvent) => {
          if (published++ === k) throw new Error('process killed while publishing');
          await publish(e);
        };
        await relayOf(diesBeforeMarking(proc), dying).flush().catch(() => undefined);
        await proc.close();
      }

      // 4. The last process starts and relays what is pending.
      proc = sqliteEventStore({ path });
      await relayOf(proc, countingPublisher()).flush();
      expect(await proc.pendingOutbox(1_000)).toEqual([]);
      await proc.close();

      const events = (await allEvents(path)).filter((e) => e.type === 'TaskRunStarted');
      const messages = await streamMessages(nats.nc, STREAMS.SCHEDULER.name);
      const ids = messages.map((m) => m.msgId);
      expect(events).toHaveLength(10 + 4 * 3);
      expect(ids).toHaveLength(events.length);
      expect(new Set(ids)).toEqual(new Set(events.map(outboxMessageId)));
      expect(duplicatesDropped).toBeGreaterThan(0); // re-published after a crash, dropped by the broker

      // Published in global order, each with its subject and payload.
      const decoded = messages.map((m) => ({ subject: m.subject, event: TaskRunStartedEvent.decode(m.data) }));
      expect(decoded.map((d) => d.event.event_id)).toEqual(events.map((e) => e.id));
      expect(decoded[0]).toMatchObject({ subject: 'scheduler.task.run-started', event: { stream_id: 'task-1', version: 2 } });
      expect(decoded[0]!.event).toMatchObject({ task_id: 1, run_id: expect.stringMatching(/^1-\d+$/) });
    });
  });

  describe('When a task is created, runs a prepared run and the run finishes', () => {
    it('should relay none of its events (none is consumed) and leave nothing pending', async () => {
      const store = sqliteEventStore({ path: join(dir, 'prepared.db') });
      const streams = eventStoreTaskStreams(store, { snapshotEvery: 1_000 });
      const t0 = Date.parse('2026-05-01T00:00:30Z');
      const dueAt = t0 + 30_000;
      const runId = `7-${dueAt / 1000}`;
      const commands = [
        { type: 'CreateTask', data: { taskId: 7, accountId: 'acc', definition, enabled: true }, metadata: { now: t0 } },
        { type: 'PrepareRun', data: { runId, dueAt, jobId: 'job-7', fileName: 'file-7' }, metadata: { now: t0 + 1 } },
        { type: 'StartPreparedRun', data: { runId }, metadata: { now: dueAt } },
        { type: 'FinishRun', data: { runId, outcome: 'succeeded', file: 'file-7' }, metadata: { now: dueAt + 2_000 } },
      ] as const;
      for (const command of commands) await streams.change(7, (s) => decide(command, s));
      const before = (await streamMessages(nats.nc, STREAMS.SCHEDULER.name)).length;

      expect(await relayOf(store).flush()).toBe(4);

      expect(await store.pendingOutbox(10)).toEqual([]);
      expect((await store.readStream('task-7')).map((e) => e.type)).toEqual(['TaskCreated', 'TaskRunPrepared', 'TaskRunStarted', 'TaskRunFinished']);
      const messages = await streamMessages(nats.nc, STREAMS.SCHEDULER.name);
      expect(messages.slice(before).map((m) => m.subject)).toEqual([]);
      await store.close();
    });
  });
});
