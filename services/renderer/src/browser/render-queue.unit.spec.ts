import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RenderQueue } from './render-queue.js';

/** A queue over `browsers` free places (what `start` is told by the pool), recording what started. */
function queueOf(opts: { concurrency: number; maxQueue: number; browsers?: number }) {
  let free = opts.browsers ?? Number.POSITIVE_INFINITY;
  const started: string[] = [];
  const expired: string[] = [];
  const queue = new RenderQueue<string>({
    concurrency: opts.concurrency,
    maxQueue: opts.maxQueue,
    start: (job) => {
      if (free <= 0) return false;
      free--;
      started.push(job);
      return true;
    },
  });
  const submit = (job: string, waitMs = 10_000) => queue.submit(job, waitMs, (j) => expired.push(j));
  const finish = () => {
    free++;
    queue.done();
  };
  return { queue, started, expired, submit, finish, freeBrowser: () => free++ };
}

describe('RenderQueue', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  describe('When more jobs come than the concurrency', () => {
    it('should start up to the concurrency and queue the rest, first come first served', () => {
      const q = queueOf({ concurrency: 2, maxQueue: 5 });
      expect(['a', 'b', 'c', 'd'].map((j) => q.submit(j))).toEqual(['started', 'started', 'queued', 'queued']);
      expect(q.queue.running).toBe(2);
      expect(q.queue.waiting).toBe(2);
      q.finish();
      expect(q.started).toEqual(['a', 'b', 'c']);
      q.finish();
      q.finish();
      expect(q.started).toEqual(['a', 'b', 'c', 'd']);
      expect(q.queue.waiting).toBe(0);
    });
  });

  describe('When the queue is full', () => {
    it('should refuse the next job and keep the others', () => {
      const q = queueOf({ concurrency: 1, maxQueue: 2 });
      expect(['a', 'b', 'c', 'd'].map((j) => q.submit(j))).toEqual(['started', 'queued', 'queued', 'refused']);
      expect(q.queue.waiting).toBe(2);
    });
  });

  describe('When a queued job waits past its time', () => {
    it('should leave the queue, be reported, and give its place to the next', () => {
      const q = queueOf({ concurrency: 1, maxQueue: 1 });
      q.submit('a');
      q.submit('b', 1_000);
      expect(q.submit('c')).toBe('refused');
      vi.advanceTimersByTime(1_000);
      expect(q.expired).toEqual(['b']);
      expect(q.submit('c')).toBe('queued');
      q.finish();
      expect(q.started).toEqual(['a', 'c']);
    });
  });

  describe('When a job started before its time ran out', () => {
    it('should never be reported expired', () => {
      const q = queueOf({ concurrency: 1, maxQueue: 1 });
      q.submit('a');
      q.submit('b', 1_000);
      q.finish();
      vi.advanceTimersByTime(5_000);
      expect(q.expired).toEqual([]);
    });
  });

  describe('When no browser can take a job though there is room', () => {
    it('should queue it, and start it when a browser becomes ready', () => {
      const q = queueOf({ concurrency: 4, maxQueue: 4, browsers: 0 });
      expect(q.submit('a')).toBe('queued');
      expect(q.queue.running).toBe(0);
      q.freeBrowser();
      q.queue.dispatch();
      expect(q.started).toEqual(['a']);
      expect(q.queue.running).toBe(1);
    });
  });

  describe('When jobs wait behind others', () => {
    it('should not let a newcomer pass them even when a place is free', () => {
      const q = queueOf({ concurrency: 2, maxQueue: 4, browsers: 0 });
      q.submit('a');
      q.freeBrowser();
      expect(q.submit('b')).toBe('queued');
      q.queue.dispatch();
      expect(q.started).toEqual(['a']);
    });
  });

  describe('When drained (the pool stops)', () => {
    it('should hand back every waiting job and never report them expired', () => {
      const q = queueOf({ concurrency: 1, maxQueue: 3 });
      q.submit('a');
      q.submit('b', 1_000);
      q.submit('c', 1_000);
      expect(q.queue.drain()).toEqual(['b', 'c']);
      vi.advanceTimersByTime(5_000);
      expect(q.expired).toEqual([]);
      expect(q.queue.waiting).toBe(0);
    });
  });
});
