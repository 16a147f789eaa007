import { randomUUID } from 'node:crypto';
import { AppError } from '@app/errors';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppendResult, NewEvent, StoredEvent } from './event-store.js';
import { handleCommand, type Decider } from './handle-command.js';
import { fakeEventStore } from './testing/fake-event-store.js';

type Counted = NewEvent<'Incremented', { by: number }>;
const counter: Decider<{ total: number }, { by: number }, Counted> = {
  initialState: () => ({ total: 0 }),
  evolve: (s, e) => ({ total: s.total + e.data.by }),
  decide: ({ by }) => [{ type: 'Incremented', data: { by } }],
};

const conflict = () => new AppError('concurrency_conflict', 'stream moved');

const stored = (streamId: string, version: number, by: number): StoredEvent => ({
  id: randomUUID(),
  type: 'Incremented',
  data: { by },
  metadata: {},
  streamId,
  version,
  globalPosition: version,
  recordedAt: new Date(),
});

const appended = (streamId: string, version: number, by: number): AppendResult => ({
  nextExpectedVersion: version,
  globalPosition: version,
  events: [stored(streamId, version, by)],
});

describe('handleCommand', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  describe('When the append conflicts once', () => {
    it('should wait 100 ms, read the stream again and append at the new version', async () => {
      const streamId = `test-${randomUUID()}`;
      const readStream = vi.fn().mockResolvedValueOnce([]).mockResolvedValueOnce([stored(streamId, 1, 5)]);
      const append = vi.fn().mockRejectedValueOnce(conflict()).mockResolvedValueOnce(appended(streamId, 2, 1));
      const store = fakeEventStore({ readStream, append });

      const result = handleCommand(store, streamId, counter, { by: 1 });
      await vi.advanceTimersByTimeAsync(99);
      expect(append).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(1);

      expect(await result).toMatchObject({ newState: { total: 6 }, nextExpectedVersion: 2 });
      expect(append.mock.calls.map((call) => call[2])).toEqual([{ expectedVersion: 0 }, { expectedVersion: 1 }]);
    });
  });

  describe('When every append conflicts', () => {
    it('should retry 3 times with delays growing by 1.5 and then rethrow the conflict', async () => {
      const append = vi.fn().mockRejectedValue(conflict());
      const store = fakeEventStore({ readStream: vi.fn().mockResolvedValue([]), append });

      const result = handleCommand(store, `test-${randomUUID()}`, counter, { by: 1 });
      const settled = expect(result).rejects.toMatchObject({ code: 'concurrency_conflict' });
      for (const [delay, attemptsAfter] of [[100, 2], [150, 3], [225, 4]] as const) {
        await vi.advanceTimersByTimeAsync(delay - 1);
        expect(append).toHaveBeenCalledTimes(attemptsAfter - 1);
        await vi.advanceTimersByTimeAsync(1);
        expect(append).toHaveBeenCalledTimes(attemptsAfter);
      }

      await settled;
    });
  });

  describe('When the append fails for another reason', () => {
    it('should rethrow at once without retrying', async () => {
      const append = vi.fn().mockRejectedValue(new AppError('conflict', 'ids reused'));
      const store = fakeEventStore({ readStream: vi.fn().mockResolvedValue([]), append });

      await expect(handleCommand(store, `test-${randomUUID()}`, counter, { by: 1 })).rejects.toMatchObject({ code: 'conflict' });
      expect(append).toHaveBeenCalledTimes(1);
    });
  });
});
