import { describe, expect, it } from 'vitest';
import { parseWrkReport } from './http-load.js';
import { medianOfRuns } from './beside-the-floor.js';

/** A 10 s run: 98% of its requests took 1 ms, 2% took `p99Us` (its p99). */
const run = (requestsPerSecond: number, p99Us: number) => {
  const requests = requestsPerSecond * 10;
  return parseWrkReport([`RESULT ${requests} 10000000 0`, `LATENCY 1000 ${requests * 0.98}`, `LATENCY ${p99Us} ${requests * 0.02}`].join('\n'));
};

describe("a side's figures beside the floor", () => {
  it('should be the median of its runs, so one slow run does not decide them', () => {
    // The second run was slowed (half the requests, a long tail); the other two agree.
    const side = medianOfRuns([run(8_000, 1_000), run(4_000, 40_000), run(7_600, 1_000)]);
    expect(side.requestsPerSecond).toBe(7_600);
    expect(side.p99Ms).toBe(1);
    expect(side.runs.map((r) => r.requestsPerSecond)).toEqual([8_000, 4_000, 7_600]);
  });

  it('should take each figure from its own runs: requests/s and p99 may come from different runs', () => {
    const side = medianOfRuns([run(8_000, 30_000), run(6_000, 1_000), run(7_000, 2_000)]);
    expect(side.requestsPerSecond).toBe(7_000);
    expect(side.p99Ms).toBe(2);
  });

  it('should refuse no runs rather than report nothing as zero', () => {
    expect(() => medianOfRuns([])).toThrow(/no runs/);
  });
});
