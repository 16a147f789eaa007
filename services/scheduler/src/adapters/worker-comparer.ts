import { Piscina } from 'piscina';
import type { Comparer, PairComparer } from '../application/ports.js';
import { ComparisonFailed, type CompareJob, type CompareJobResult } from '../comparison/compare-job.js';

/**
 * The worker threads' entry as built: next to this file in dist/, and taken from dist/ when this file runs
 * from its TypeScript source (tests: a worker thread cannot load .ts, so the service is built first).
 */
const defaultWorkerFile = (): string =>
  (import.meta.url.endsWith('.ts')
    ? new URL('../../dist/comparison/compare.worker.js', import.meta.url)
    : new URL('../comparison/compare.worker.js', import.meta.url)
  ).href;

const NICE_INCREMENT = 10;

/**
 * The threads' Node options: the process's, without `require()` of ES modules, so that piscina, which
 * tries `require` before `import()`, loads the worker's entry asynchronously. On Node 20 a thread
 * stopped at its deadline while `require()` was instantiating an ES module graph aborted the whole process
 * ("v8::Module::IsGraphAsync must be used on an instantiated module"); `import()` is stopped cleanly.
 */
const THREAD_EXEC_ARGV = [...process.execArgv, '--no-experimental-require-module'];

export interface WorkerComparerOptions {
  threads: number;
  /** How long a job may run in its thread; then the thread is stopped and a new one started. */
  deadlineMs: number;
  /** A thread whose heap grows past this dies alone (ERR_WORKER_OUT_OF_MEMORY), not the scheduler. */
  maxHeapMb?: number;
  filename?: string;
}

/**
 * Comparisons in a pool of worker threads (piscina). Jobs wait here for a free thread, so a job's deadline
 * counts only its own running time; a job past its deadline is aborted, which terminates its thread.
 */
export function workerComparer(opts: WorkerComparerOptions): Comparer & PairComparer & { close(): Promise<void> } {
  const pool = new Piscina({
    filename: opts.filename ?? defaultWorkerFile(),
    minThreads: 1,
    maxThreads: opts.threads,
    idleTimeout: 60_000,
    concurrentTasksPerWorker: 1,
    // Lower CPU priority (Linux: per thread) than the thread that serves requests: on a busy machine the
    // requests of every account go first, a comparison takes the time that is left.
    niceIncrement: NICE_INCREMENT,
    execArgv: THREAD_EXEC_ARGV,
    resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb ?? 1_024 },
  });
  let running = 0;
  const waiting: (() => void)[] = [];
  const acquire = (): Promise<void> => {
    if (running < opts.threads) {
      running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  // A freed slot passes straight to the next waiting job (running stays the same).
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  /** Runs one job (`name`: the worker's export; default: a run's comparison) in a free thread. */
  const run = async <R>(job: unknown, name?: string): Promise<R> => {
    await acquire();
    try {
      return (await pool.run(job, { signal: AbortSignal.timeout(opts.deadlineMs), ...(name ? { name } : {}) })) as R;
    } catch (err) {
      if (err instanceof Error && err.name === 'AbortError') throw new ComparisonFailed('deadline', { cause: err });
      const crashed = err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('ERR_WORKER');
      throw new ComparisonFailed(crashed ? 'crashed' : 'error', { cause: err });
    } finally {
      release();
    }
  };

  return {
    compare: (job: CompareJob) => run<CompareJobResult>(job),
    comparePair: (job) => run(job, 'comparePair'),
    close: () => pool.destroy(),
  };
}
