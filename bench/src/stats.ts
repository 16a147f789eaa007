/** Order statistics of a sample (milliseconds or anything else). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: number[]) => percentile(values, 50);

export async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Runs `count` tasks with at most `concurrency` at once; returns the wall time in ms. */
export async function runConcurrently(count: number, concurrency: number, task: (i: number, worker: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next < count) {
        const i = next++;
        await task(i, worker);
      }
    }),
  );
  return performance.now() - start;
}

export const round = (n: number, digits = 1) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : n);
