import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ExpectedVersion } from '../event-store.js';
import { expectRejectedWith, happened, happenings, newStreamId, range, versionsOf, type ContractHarness } from './contract-harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Appending, reading, snapshots and the outbox, one caller at a time. */
export function storageContract({ open }: ContractHarness): void {
  describe('When appending to a new stream', () => {
    it('should store the events at versions 1..n with ids, positions and a record time', async () => {
      const { store } = await open();
      const streamId = newStreamId();
      const before = Date.now();

      const result = await store.append(streamId, [happened(1), happened(2), happened(3)], { expectedVersion: 'no_stream' });

      const events = await store.readStream(streamId);
      expect(versionsOf(events)).toEqual([1, 2, 3]);
      expect(events.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      expect(events.every((e) => UUID.test(e.id) && e.streamId === streamId && e.type === 'Happened')).toBe(true);
      expect(events.map((e) => e.globalPosition)).toEqual(range(events[0]!.globalPosition, events[0]!.globalPosition + 2));
      expect(events[0]!.recordedAt.getTime()).toBeGreaterThanOrEqual(before);
      expect(events[0]!.recordedAt.getTime()).toBeLessThanOrEqual(Date.now());
      expect(result).toMatchObject({ nextExpectedVersion: 3, globalPosition: events[2]!.globalPosition });
      expect(result.events).toEqual(events);
    });

    it('should keep the given ids, metadata, and data with nested values and Dates', async () => {
      const { store } = await open();
      const streamId = newStreamId();
      const id = randomUUID();
      const data = { text: 'é ✓', n: 1.5, nested: { list: [1, 'two', null, true], at: new Date('2026-03-08T02:30:00.123Z') } };
      const metadata = { causationId: randomUUID(), now: new Date('2026-01-01T00:00:00.000Z') };

      await store.append(streamId, [{ id, type: 'Described', data, metadata }], { expectedVersion: 0 });

      const [event] = await store.readStream(streamId);
      expect(event).toMatchObject({ id, type: 'Described', data, metadata });
      expect((event!.data as typeof data).nested.at).toBeInstanceOf(Date);
    });
  });

  describe('When the expected version matches the stream', () => {
    it('should append after the existing events', async () => {
      const { store } = await open();
      const streamId = newStreamId();
      await store.append(streamId, [happened(1), happened(2)], { expectedVersion: 'no_stream' });

      await store.append(streamId, [happened(3)], { expectedVersion: 2 });
      const result = await store.append(streamId, [happened(4)], { expectedVersion: 'stream_exists' });

      expect(versionsOf(await store.readStream(streamId))).toEqual([1, 2, 3, 4]);
      expect(result.nextExpectedVersion).toBe(4);
    });
  });

  describe('When the expected version does not match the stream', () => {
    it.each<[ExpectedVersion, number]>([
      [1, 2],
      [3, 2],
      [0, 1],
      ['no_stream', 1],
      ['stream_exists', 0],
    ])('should reject expecting %s at version %s and write nothing', async (expectedVersion, existing) => {
      const { store } = await open();
      const streamId = newStreamId();
      if (existing > 0) await store.append(streamId, happenings(1, existing), { expectedVersion: 0 });

      await expectRejectedWith(store.append(streamId, [happened(99)], { expectedVersion }), 'concurrency_conflict');

      expect(await store.readStream(streamId)).toHaveLength(existing);
      expect(await store.pendingOutbox(100)).toHaveLength(existing);
    });
  });

  describe('When the append is malformed', () => {
    it.each([
      { case: 'no events', events: [], expectedVersion: 0 },
      { case: 'a duplicated event id', events: [happened(1, { id: 'same' }), happened(2, { id: 'same' })], expectedVersion: 0 },
      { case: 'a negative expected version', events: [happened(1)], expectedVersion: -1 },
      { case: "an 'any' expected version", events: [happened(1)], expectedVersion: 'any' as never },
    ])('should reject $case as invalid_parameter', async ({ events, expectedVersion }) => {
      const { store } = await open();
      const streamId = newStreamId();

      await expectRejectedWith(store.append(streamId, events, { expectedVersion }), 'invalid_parameter');

      expect(await store.readStream(streamId)).toEqual([]);
    });
  });

  describe('When reading a stream', () => {
    it('should return the events from the given version on', async () => {
      const { store } = await open();
      const streamId = newStreamId();
      await store.append(streamId, happenings(1, 5), { expectedVersion: 'no_stream' });

      const events = await store.readStream(streamId, { fromVersion: 3 });

      expect(versionsOf(events)).toEqual([3, 4, 5]);
      expect(events.map((e) => e.data)).toEqual([{ n: 3 }, { n: 4 }, { n: 5 }]);
    });

    it('should return nothing for a stream that does not exist', async () => {
      const { store } = await open();

      expect(await store.readStream(newStreamId())).toEqual([]);
    });
  });

  describe('When reading all streams', () => {
    it('should return the events of every stream in commit order', async () => {
      const { store } = await open();
      const [a, b] = [newStreamId(), newStreamId()];
      await store.append(a, [happened(1)], { expectedVersion: 0 });
      await store.append(b, [happened(2), happened(3)], { expectedVersion: 0 });
      await store.append(a, [happened(4)], { expectedVersion: 1 });

      const all = await store.readAll();

      expect(all.map((e) => [e.streamId, e.version, e.data])).toEqual([
        [a, 1, { n: 1 }],
        [b, 1, { n: 2 }],
        [b, 2, { n: 3 }],
        [a, 2, { n: 4 }],
      ]);
      const positions = all.map((e) => e.globalPosition);
      expect(positions).toEqual([...positions].sort((x, y) => x - y));
      expect(new Set(positions).size).toBe(positions.length);
    });

    it('should return only the events after the given position, up to the limit', async () => {
      const { store } = await open();
      const [a, b] = [newStreamId(), newStreamId()];
      await store.append(a, happenings(1, 3), { expectedVersion: 0 });
      await store.append(b, happenings(4, 6), { expectedVersion: 0 });
      const all = await store.readAll();

      const page = await store.readAll({ after: all[1]!.globalPosition, limit: 3 });
      const rest = await store.readAll({ after: page[2]!.globalPosition });

      expect(page.map((e) => e.data)).toEqual([{ n: 3 }, { n: 4 }, { n: 5 }]);
      expect(rest.map((e) => e.data)).toEqual([{ n: 6 }]);
      expect(await store.readAll({ after: all[5]!.globalPosition })).toEqual([]);
    });
  });

  describe('When snapshots are saved', () => {
    it('should load the latest one', async () => {
      const { store } = await open();
      const streamId = newStreamId();
      await store.saveSnapshot(streamId, 2, { total: 2 });

      await store.saveSnapshot(streamId, 5, { total: 5, at: new Date('2026-10-25T01:00:00.000Z') });

      expect(await store.loadSnapshot(streamId)).toEqual({
        version: 5,
        state: { total: 5, at: new Date('2026-10-25T01:00:00.000Z') },
      });
    });

    it('should keep the newer one when an older one is saved after it', async () => {
      const { store } = await open();
      const streamId = newStreamId();
      await store.saveSnapshot(streamId, 5, { total: 5 });

      await store.saveSnapshot(streamId, 3, { total: 3 });

      expect(await store.loadSnapshot(streamId)).toEqual({ version: 5, state: { total: 5 } });
    });

    it('should load nothing for a stream without a snapshot', async () => {
      const { store } = await open();

      expect(await store.loadSnapshot(newStreamId())).toBeNull();
    });
  });

  describe('When events are appended (outbox)', () => {
    it('should list every appended event as pending, in global order', async () => {
      const { store } = await open();
      const [a, b] = [newStreamId(), newStreamId()];
      await store.append(a, [happened(1), happened(2)], { expectedVersion: 0 });
      await store.append(b, [happened(3)], { expectedVersion: 0 });

      const pending = await store.pendingOutbox(10);

      expect(pending.map((e) => [e.streamId, e.version])).toEqual([[a, 1], [a, 2], [b, 1]]);
      expect(await store.pendingOutbox(2)).toEqual(pending.slice(0, 2));
    });

    it('should stop listing the events marked published', async () => {
      const { store } = await open();
      const streamId = newStreamId();
      const { events } = await store.append(streamId, happenings(1, 3), { expectedVersion: 0 });

      await store.markPublished([events[0]!.id, events[2]!.id, randomUUID()]);

      expect((await store.pendingOutbox(10)).map((e) => e.id)).toEqual([events[1]!.id]);
      expect(await store.readStream(streamId)).toHaveLength(3);
    });

    it('should add no outbox entry for an append that was rejected', async () => {
      const { store } = await open();
      const streamId = newStreamId();
      const first = happened(1, { id: randomUUID() });
      await store.append(streamId, [first], { expectedVersion: 0 });

      await expectRejectedWith(store.append(streamId, [happened(2), first], { expectedVersion: 1 }), 'conflict');
      await expectRejectedWith(store.append(streamId, [happened(3)], { expectedVersion: 0 }), 'concurrency_conflict');

      expect((await store.pendingOutbox(10)).map((e) => e.id)).toEqual([first.id]);
      expect(await store.readAll()).toHaveLength(1);
    });
  });

  describe('When the store is opened again on the same database', () => {
    it('should read the events, snapshots and outbox state it wrote before', async () => {
      const { store, database } = await open();
      const streamId = newStreamId();
      const { events } = await store.append(streamId, [happened(1), happened(2)], { expectedVersion: 0 });
      await store.saveSnapshot(streamId, 2, { total: 3 });
      await store.markPublished([events[0]!.id]);
      await store.close();

      const { store: reopened } = await open(database);

      expect(await reopened.readStream(streamId)).toEqual(events);
      expect(await reopened.loadSnapshot(streamId)).toEqual({ version: 2, state: { total: 3 } });
      expect((await reopened.pendingOutbox(10)).map((e) => e.id)).toEqual([events[1]!.id]);
      await reopened.append(streamId, [happened(3)], { expectedVersion: 2 });
    });
  });
}
