import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assertExpectedVersion, prepareAppend, replayedAppend, type EventToAppend } from './append-rules.js';
import type { ExpectedVersion, StoredEvent } from './event-store.js';

const streamId = `test-${randomUUID()}`;

const toAppend = (count: number): EventToAppend[] =>
  Array.from({ length: count }, (_, i) => ({ id: randomUUID(), type: 'Happened', data: { i }, metadata: {} }));

const committedAt = (events: EventToAppend[], firstVersion: number, stream = streamId): StoredEvent[] =>
  events.map((e, i) => ({ ...e, streamId: stream, version: firstVersion + i, globalPosition: 10 + i, recordedAt: new Date() }));

describe('assertExpectedVersion', () => {
  describe('When the stream is where the append expects it', () => {
    it.each<[ExpectedVersion, number]>([
      [0, 0],
      ['no_stream', 0],
      [3, 3],
      ['stream_exists', 1],
      ['stream_exists', 7],
    ])('should accept expecting %s at version %s', (expected, current) => {
      expect(() => assertExpectedVersion(streamId, current, expected)).not.toThrow();
    });
  });

  describe('When the stream is elsewhere', () => {
    it.each<[ExpectedVersion, number]>([
      [0, 1],
      ['no_stream', 2],
      [3, 2],
      [3, 4],
      ['stream_exists', 0],
    ])('should throw concurrency_conflict expecting %s at version %s', (expected, current) => {
      expect(() => assertExpectedVersion(streamId, current, expected)).toThrow(
        expect.objectContaining({ code: 'concurrency_conflict' }),
      );
    });
  });
});

describe('prepareAppend', () => {
  describe('When events have no ids or metadata', () => {
    it('should give each a fresh id and empty metadata', () => {
      const [a, b] = prepareAppend(streamId, [{ type: 'A', data: 1 }, { type: 'B', data: 2 }], 0);

      expect(a!.id).not.toBe(b!.id);
      expect([a!.metadata, b!.metadata]).toEqual([{}, {}]);
    });
  });

  describe('When the request is malformed', () => {
    it.each([
      { case: 'an empty stream id', stream: '', events: [{ type: 'A', data: 1 }], expected: 0 },
      { case: 'no events', stream: streamId, events: [], expected: 0 },
      { case: 'an empty type', stream: streamId, events: [{ type: '', data: 1 }], expected: 0 },
      { case: 'a fractional version', stream: streamId, events: [{ type: 'A', data: 1 }], expected: 1.5 },
      { case: "'any'", stream: streamId, events: [{ type: 'A', data: 1 }], expected: 'any' as ExpectedVersion },
    ])('should throw invalid_parameter for $case', ({ stream, events, expected }) => {
      expect(() => prepareAppend(stream, events, expected)).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
    });
  });
});

describe('replayedAppend', () => {
  describe('When none of the events is committed', () => {
    it('should return null (a new append)', () => {
      expect(replayedAppend(streamId, toAppend(2), 4, [])).toBeNull();
    });
  });

  describe('When all of them are committed in order at the expected version', () => {
    it.each<ExpectedVersion>([4, 'stream_exists'])('should return the committed events (expecting %s)', (expected) => {
      const events = toAppend(2);
      const committed = committedAt(events, 5);

      expect(replayedAppend(streamId, events, expected, [...committed].reverse())).toEqual(committed);
    });
  });

  describe('When they are committed only in part, elsewhere or out of order', () => {
    it.each([
      { case: 'in part', committed: (e: EventToAppend[]) => committedAt(e.slice(0, 1), 5), expected: 4 },
      { case: 'at another version', committed: (e: EventToAppend[]) => committedAt(e, 6), expected: 4 },
      { case: 'in another stream', committed: (e: EventToAppend[]) => committedAt(e, 5, 'other'), expected: 4 },
      { case: 'out of order', committed: (e: EventToAppend[]) => committedAt([e[1]!, e[0]!], 5), expected: 'stream_exists' as const },
    ])('should throw conflict when $case', ({ committed, expected }) => {
      const events = toAppend(2);

      expect(() => replayedAppend(streamId, events, expected, committed(events))).toThrow(
        expect.objectContaining({ code: 'conflict' }),
      );
    });
  });
});
