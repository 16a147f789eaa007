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
  beforeEach(() => {
    vi.useFakeTimers();
    // The jitter at its middle: each wait is exactly retryDelayMs × its rank.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  describe('When the append conflicts once', () => {
    it('should read the stream again at once and append at the new version', async () => {
      const streamId = `test-${randomUUID()}`;
      const readStream = vi.fn().mockResolvedValueOnce([]).mockResolvedValueOnce([stored(streamId, 1, 5)]);
      const append = vi.fn().mockRejectedValueOnce(conflict()).mockResolvedValueOnce(appended(streamId, 2, 1));
      const store = fakeEventStore({ readStream, append });

      const result = await handleCommand(store, streamId, counter, { by: 1 });

      expect(result).toMatchObject({ state: { total: 5 }, newState: { total: 6 }, nextExpectedVersion: 2 });
      expect(append.mock.calls.map((call) => call[2])).toEqual([{ expectedVersion: 0 }, { expectedVersion: 1 }]);
    });
  });

  describe('When every append conflicts', () => {
    it('should retry 5 times, the first at once and then after 10, 20, 30, 40 ms, and then rethrow the conflict', async () => {
      const append = vi.fn().mockRejectedValue(conflict());
      const store = fakeEventStore({ readStream: vi.fn().mockResolvedValue([]), append });

      const result = handleCommand(store, `test-${randomUUID()}`, counter, { by: 1 });
      const settled = expect(result).rejects.toMatchObject({ code: 'concurrency_conflict' });
      await vi.advanceTimersByTimeAsync(0);
      expect(append).toHaveBeenCalledTimes(2);
      for (const [delay, attemptsAfter] of [[10, 3], [20, 4], [30, 5], [40, 6]] as const) {
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
