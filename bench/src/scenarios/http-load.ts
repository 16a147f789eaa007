import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface HttpLoadResult {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** Every latency wrk recorded, in microseconds, as [value, count] by ascending value: runs merge exactly. */
  latencyUs: Array<[number, number]>;
}

const run = promisify(execFile);

/**
 * wrk's report for one run, and its whole latency distribution (one line per distinct value), so that
 * runs of one load merge into exact percentiles instead of a guess from each run's own.
 */
const REPORT = `
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d\\n", summary.requests, summary.duration, summary.errors.status))
  for i = 1, #latency do
    local value, count = latency(i)
    io.write(string.format("LATENCY %d %d\\n", value, count))
  end
end
`;

/** The value at percentile `p` of a distribution given as [value, count] by ascending value. */
export function percentileOf(distribution: ReadonlyArray<readonly [number, number]>, p: number): number {
  const total = distribution.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (const [value, count] of distribution) {
    seen += count;
    if (seen >= rank) return value;
  }
  return distribution[distribution.length - 1]![0];
}

const summarize = (requests: number, seconds: number, non2xx: number, latencyUs: Array<[number, number]>): HttpLoadResult => ({
  requests,
  seconds,
  requestsPerSecond: requests / seconds,
  p50Ms: percentileOf(latencyUs, 50) / 1000,
  p99Ms: percentileOf(latencyUs, 99) / 1000,
  non2xx,
  latencyUs,
});

/** Reads the lines REPORT writes (anything else wrk prints is ignored). */
export function parseWrkReport(stdout: string): HttpLoadResult {
  const result = /^RESULT (\d+) (\d+) (\d+)$/m.exec(stdout);
  if (!result) throw new Error(`wrk printed no result:\n${stdout}`);
  const latencyUs: Array<[number, number]> = [];
  for (const m of stdout.matchAll(/^LATENCY (\d+) (\d+)$/gm)) latencyUs.push([Number(m[1]), Number(m[2])]);
  latencyUs.sort((a, b) => a[0] - b[0]);
  return summarize(Number(result[1]), Number(result[2]) / 1e6, Number(result[3]), latencyUs);
}

/**
 * Drives the HTTPS API with wrk (a C load generator, so the client costs little CPU next to the
 * service) for `seconds`, and reads requests/s and the latency distribution from its report.
 */
export async function httpLoad(opts: {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
}): Promise<HttpLoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'wrk-'));
  const script = join(dir, 'request.lua');
  const headerLines = Object.entries(opts.headers)
    .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join('\n');
  writeFileSync(
    script,
    `wrk.method = ${JSON.stringify(opts.method)}\n${headerLines}\n${opts.body ? `wrk.body = ${JSON.stringify(opts.body)}` : ''}\n${REPORT}`,
  );
  const { stdout } = await run('wrk', ['-t', '1', '-c', String(opts.connections), '-d', `${opts.seconds}s`, '-s', script, opts.url], {
    maxBuffer: 16 << 20,
  });
  return parseWrkReport(stdout);
}

/**
 * Runs of one load as one: requests/s over their whole time, and percentiles of every request of
 * every run (their latency distributions added up).
 */
export function mergeRuns(runs: HttpLoadResult[]): HttpLoadResult {
  if (runs.length === 0) throw new Error('no runs to merge');
  const counts = new Map<number, number>();
  for (const r of runs) for (const [value, count] of r.latencyUs) counts.set(value, (counts.get(value) ?? 0) + count);
  const latencyUs = [...counts].sort((a, b) => a[0] - b[0]);
  const sum = (f: (r: HttpLoadResult) => number) => runs.reduce((total, r) => total + f(r), 0);
  return summarize(sum((r) => r.requests), sum((r) => r.seconds), sum((r) => r.non2xx), latencyUs);
}
