import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EventStore, ExpectedVersion } from '../event-store.js';
import { expectRejectedWith, happened, newStreamId, range, versionsOf, type ContractHarness } from './contract-harness.js';

const RACE_TIMEOUT_MS = 180_000;

/**
 * Every writer reads the stream version first, all before any of them appends, then all append at once with
 * the version they read: the read-then-append race that optimistic concurrency must settle. Writers are
 * spread over the given store instances (connections).
 */
async function race(stores: EventStore[], streamId: string, writers: number, eventsEach: number) {
  const storeOf = (writer: number) => stores[writer % stores.length]!;
  const seen = await Promise.all(range(1, writers).map(async (w) => (await storeOf(w).readStream(streamId)).length));
  const results = await Promise.allSettled(
    seen.map((version, w) =>
      storeOf(w).append(streamId, range(1, eventsEach).map(() => happened(w)), { expectedVersion: version }),
    ),
  );
  return { seen, results };
}

function expectOneWinner(results: PromiseSettledResult<unknown>[], code: string): number {
  const winners = results.flatMap((r, w) => (r.status === 'fulfilled' ? [w] : []));
  const losers = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as { code?: string }] : []));
  expect(winners).toHaveLength(1);
  expect(losers.map((e) => e.code)).toEqual(losers.map(() => code));
  return winners[0]!;
}

/** Optimistic concurrency under real races, across connections, and idempotent re-sends. */
export function concurrencyContract({ open, raceRounds }: ContractHarness): void {
  describe('When 50 writers append at the same expected version', () => {
    it(
      'should let exactly one win and keep the versions contiguous',
      async () => {
        const { store } = await open();
        for (let round = 0; round < raceRounds; round++) {
          const streamId = newStreamId();
          await store.append(streamId, [happened(-1)], { expectedVersion: 'no_stream' });

          const { seen, results } = await race([store], streamId, 50, 2);

          expect(new Set(seen)).toEqual(new Set([1]));
          const winner = expectOneWinner(results, 'concurrency_conflict');
          const events = await store.readStream(streamId);
          expect(versionsOf(events)).toEqual([1, 2, 3]);
          expect(events.slice(1).map((e) => e.data)).toEqual([{ n: winner }, { n: winner }]);
        }
      },
      RACE_TIMEOUT_MS,
    );
  });

  describe('When two store instances race on the same database', () => {
    it(
      'should let exactly one of their writers win',
      async () => {
        const { store: first, database } = await open();
        const { store: second } = await open(database);
        for (let round = 0; round < Math.max(1, raceRounds / 10); round++) {
          const streamId = newStreamId();
          await first.append(streamId, [happened(-1)], { expectedVersion: 'no_stream' });

          const { results } = await race([first, second], streamId, 10, 1);

          const winner = expectOneWinner(results, 'concurrency_conflict');
          expect((await second.readStream(streamId)).map((e) => e.data)).toEqual([{ n: -1 }, { n: winner }]);
          expect(versionsOf(await first.readStream(streamId))).toEqual([1, 2]);
        }
      },
      RACE_TIMEOUT_MS,
    );
  });

  describe('When 20 writers create the same stream at once', () => {
    it.each<ExpectedVersion>(['no_stream', 0])('should let exactly one create it (expecting %s)', async (expectedVersion) => {
      const { store } = await open();
      const streamId = newStreamId();

      const results = await Promise.allSettled(
        range(1, 20).map((w) => store.append(streamId, [happened(w)], { expectedVersion })),
      );

      const winner = expectOneWinner(results, 'concurrency_conflict');
      expect((await store.readStream(streamId)).map((e) => e.data)).toEqual([{ n: winner + 1 }]);
    });
  });

  describe('When appends to many streams are asked at the same moment', () => {
    it('should commit or refuse each on its own, a refused one leaving nothing', async () => {
      const { store } = await open();
      const streams = range(0, 29).map(() => newStreamId());
      await Promise.all(streams.map((s) => store.append(s, [happened(0)], { expectedVersion: 0 })));
      const committed = happened(-1, { id: randomUUID() });
      await store.append(streams[0]!, [committed], { expectedVersion: 1 });
      // Every third one is stale, every third reuses a committed event id, the others are current.
      const kind = (i: number) => (['current', 'stale', 'reusing'] as const)[i % 3]!;

      const results = await Promise.allSettled(
        streams.map((s, i) => {
          if (kind(i) === 'stale') return store.append(s, [happened(i), happened(i)], { expectedVersion: 0 });
          if (kind(i) === 'reusing') return store.append(s, [happened(i), committed], { expectedVersion: 1 });
          return store.append(s, [happened(i), happened(i)], { expectedVersion: i === 0 ? 2 : 1 });
        }),
      );

      for (const [i, result] of results.entries()) {
        const versions = versionsOf(await store.readStream(streams[i]!));
        if (kind(i) === 'current') {
          expect(result.status).toBe('fulfilled');
          expect(versions).toEqual(i === 0 ? [1, 2, 3, 4] : [1, 2, 3]);
        } else {
          const code = kind(i) === 'stale' ? 'concurrency_conflict' : 'conflict';
          expect(result).toMatchObject({ status: 'rejected', reason: { code } });
          expect(versions).toEqual([1]);
        }
      }
      expect(await store.readAll()).toHaveLength(30 + 1 + 10 * 2);
    });
  });

  describe('When a committed append is sent again', () => {
    it('should succeed without writing when all its events are committed', async () => {
      const { store } = await open();
      const streamId = newStreamId();
      await store.append(streamId, [happened(1)], { expectedVersion: 0 });
      const events = [happened(2, { id: randomUUID() }), happened(3, { id: randomUUID() })];
      const first = await store.append(streamId, events, { expectedVersion: 1 });
      await store.append(streamId, [happened(4)], { expectedVersion: 3 });

      const again = await store.append(streamId, events, { expectedVersion: 1 });

      expect(again).toEqual(first);
      expect(await store.readStream(streamId)).toHaveLength(4);
      expect(await store.readAll()).toHaveLength(4);
    });

    it('should succeed for a stream creation sent again', async () => {
      const { store } = await open();
      const streamId = newStreamId();
      const events = [happened(1, { id: randomUUID() })];
      await store.append(streamId, events, { expectedVersion: 'no_stream' });

      const again = await store.append(streamId, events, { expectedVersion: 'no_stream' });

      expect(again.nextExpectedVersion).toBe(1);
      expect(await store.readStream(streamId)).toHaveLength(1);
    });

    it('should reject it with conflict when only some of its events are committed', async () => {
      const { store } = await open();
      const streamId = newStreamId();
      const committed = happened(1, { id: randomUUID() });
      await store.append(streamId, [committed], { expectedVersion: 0 });

      await expectRejectedWith(
        store.append(streamId, [committed, happened(2, { id: randomUUID() })], { expectedVersion: 0 }),
        'conflict',
      );

      expect(await store.readStream(streamId)).toHaveLength(1);
    });

    it('should reject it with conflict when its events were committed at another version or stream', async () => {
      const { store } = await open();
      const [streamId, other] = [newStreamId(), newStreamId()];
      const event = happened(1, { id: randomUUID() });
      await store.append(streamId, [happened(0), event], { expectedVersion: 0 });

      await expectRejectedWith(store.append(streamId, [event], { expectedVersion: 0 }), 'conflict');
      await expectRejectedWith(store.append(other, [event], { expectedVersion: 1 }), 'conflict');

      expect(await store.readAll()).toHaveLength(2);
    });
  });
}
