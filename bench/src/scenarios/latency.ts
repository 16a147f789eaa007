import type { Baselines, Operation } from '../baselines.js';
import type { ServiceClient } from '../client.js';
import { median, percentile, timed } from '../stats.js';

export interface LatencyResult {
  operation: Operation;
  ours: { p50: number; p99: number };
  freshContext: { p50: number; p99: number };
  reusedPage: { p50: number; p99: number };
}

/**
 * One render at a time, ours and the baselines interleaved round by round so that drift on a shared
 * machine affects all three alike.
 */
export async function latencyScenario(opts: {
  operation: Operation;
  url: string;
  client: ServiceClient;
  baselines: Baselines;
  warmup: number;
  runs: number;
  /** Extra render parameters of our requests. */
  params?: Record<string, unknown>;
}): Promise<LatencyResult> {
  const { operation, url, client, baselines } = opts;
  const ours: number[] = [];
  const fresh: number[] = [];
  const reused: number[] = [];
  for (let i = 0; i < opts.warmup + opts.runs; i++) {
    const a = await timed(() => client.render(operation, { url, ...opts.params }));
    const b = await timed(() => baselines.freshContext(url, operation));
    const c = await timed(() => baselines.reusedPage(url, operation));
    if (i < opts.warmup) continue;
    ours.push(a);
    fresh.push(b);
    reused.push(c);
  }
  const summary = (v: number[]) => ({ p50: median(v), p99: percentile(v, 99) });
  return { operation, ours: summary(ours), freshContext: summary(fresh), reusedPage: summary(reused) };
}
