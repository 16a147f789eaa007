import { afterAll, describe, expect, it } from 'vitest';
import type { CompareJob } from '../comparison/compare-job.js';
import { ComparisonFailed } from '../comparison/compare-job.js';
import { workerComparer } from './worker-comparer.js';

// The comparison pool with a stand-in worker: the deadline stops a job that never ends, a job that exhausts
// its heap kills its thread only, and the pool goes on with new threads.

const fixture = new URL('../testing/comparer-fixture.worker.mjs', import.meta.url).href;
const job = (kind: string, extra: Record<string, unknown> = {}) => ({ kind, ...extra }) as unknown as CompareJob;
const failureOf = async (p: Promise<unknown>): Promise<ComparisonFailed> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof ComparisonFailed) return err;
    throw err;
  }
  throw new Error('the job succeeded');
};

describe('Comparisons in worker threads', () => {
  const comparer = workerComparer({ threads: 1, deadlineMs: 3_000, maxHeapMb: 64, filename: fixture });
  afterAll(() => comparer.close());

  it('should stop a job past its deadline, and keep the thread that runs the test free meanwhile', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    const failure = await failureOf(comparer.compare(job('spin')));
    clearInterval(ticker);
    expect(failure.reason).toBe('deadline');
    expect(ticks).toBeGreaterThan(5);
  });

  it('should report a job that exhausts its heap as crashed, the scheduler\'s process going on', async () => {
    expect((await failureOf(comparer.compare(job('heap')))).reason).toBe('crashed');
  });

  it('should then run jobs on a new thread, each waiting for the thread before its deadline starts', async () => {
    // One thread: the second job waits for the first (2 s) and runs 2 s itself, past the 3 s deadline in all.
    const results = await Promise.all([comparer.compare(job('busy', { ms: 2_000, score: 1 })), comparer.compare(job('busy', { ms: 2_000, score: 2 }))]);
    expect(results.map((r) => r.comparison?.score)).toEqual([1, 2]);
  });
});
