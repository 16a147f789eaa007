import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface HttpLoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

const run = promisify(execFile);

const toMs = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);

/**
 * Drives the HTTPS API with wrk (a C load generator, so the client costs little CPU next to the
 * service) for `seconds`, and reads requests/s and latency percentiles from its report.
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
    `wrk.method = ${JSON.stringify(opts.method)}\n${headerLines}\n${opts.body ? `wrk.body = ${JSON.stringify(opts.body)}` : ''}\n`,
  );
  const { stdout } = await run('wrk', ['-t', '1', '-c', String(opts.connections), '-d', `${opts.seconds}s`, '--latency', '-s', script, opts.url], {
    maxBuffer: 1 << 20,
  });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN);
  const pct = (p: string) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout);
    return m ? toMs(m[1]!, m[2]!) : NaN;
  };
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  return { requestsPerSecond: rps, p50Ms: pct('50'), p99Ms: pct('99'), non2xx };
}

/**
 * Runs of one load of equal duration as one result: requests/s over all of them, the median p50 and,
 * since percentiles do not add up, the highest p99 of any run (never better than the whole).
 */
export function mergeRuns(slices: HttpLoadResult[]): HttpLoadResult {
  if (slices.length === 0) throw new Error('no runs to merge');
  const p50s = slices.map((s) => s.p50Ms).sort((a, b) => a - b);
  return {
    requestsPerSecond: slices.reduce((sum, s) => sum + s.requestsPerSecond, 0) / slices.length,
    p50Ms: p50s[Math.floor(p50s.length / 2)]!,
    p99Ms: Math.max(...slices.map((s) => s.p99Ms)),
    non2xx: slices.reduce((sum, s) => sum + s.non2xx, 0),
  };
}
