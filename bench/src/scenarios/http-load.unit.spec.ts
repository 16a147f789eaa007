import { describe, expect, it } from 'vitest';
import { mergeRuns, parseWrkReport, percentileOf } from './http-load.js';

const report = (requests: number, durationUs: number, latencies: Array<[number, number]>) =>
  ['Running 2s test @ https://127.0.0.1:1/', `RESULT ${requests} ${durationUs} 0`, ...latencies.map(([v, c]) => `LATENCY ${v} ${c}`)].join('\n');

describe('wrk load figures', () => {
  it('should read requests/s and percentiles from the whole distribution wrk reports', () => {
    const r = parseWrkReport(report(100, 2_000_000, [[3_000, 1], [1_000, 98], [20_000, 1]]));
    expect(r.requestsPerSecond).toBe(50);
    expect(r.p50Ms).toBe(1);
    expect(r.p99Ms).toBe(3);
    expect(r.latencyUs).toEqual([[1_000, 98], [3_000, 1], [20_000, 1]]);
  });

  it('should merge runs into the percentiles of all their requests, not the worst or the mean of each', () => {
    // A slow run of 10 requests and a fast one of 990: 1% of all requests are slow at most.
    const slow = parseWrkReport(report(10, 1_000_000, [[50_000, 10]]));
    const fast = parseWrkReport(report(990, 1_000_000, [[2_000, 990]]));
    const merged = mergeRuns([slow, fast]);
    expect(merged.requests).toBe(1_000);
    expect(merged.requestsPerSecond).toBe(500);
    expect(merged.p99Ms).toBe(2);
    expect(mergeRuns([slow, fast, parseWrkReport(report(1, 1_000_000, [[60_000, 1]]))]).p99Ms).toBe(50);
  });

  it('should take the value whose cumulative count first reaches the rank', () => {
    expect(percentileOf([[1, 50], [2, 50]], 50)).toBe(1);
    expect(percentileOf([[1, 50], [2, 50]], 51)).toBe(2);
    expect(percentileOf([], 99)).toBeNaN();
  });

  it('should refuse output without a result rather than report nothing as zero', () => {
    expect(() => parseWrkReport('unable to connect to 127.0.0.1:1 Connection refused')).toThrow(/no result/);
  });
});
