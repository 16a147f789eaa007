import type { Baselines, ImageType } from '../baselines.js';
import type { ServiceClient } from '../client.js';
import { runConcurrently } from '../stats.js';

export interface ThroughputResult {
  concurrency: number;
  ours: number;
  freshContext: number;
}

/** Screenshots per second at a fixed concurrency, ours and baseline (a) alternately, best of `rounds`. */
export async function throughputScenario(opts: {
  url: string;
  client: ServiceClient;
  baselines: Baselines;
  concurrency: number;
  renders: number;
  rounds: number;
  params?: Record<string, unknown>;
  /** The accounts the clients render for, one per client in turn (ServiceClient.rendersFor). */
  accessKeys?: string[];
}): Promise<ThroughputResult> {
  const ours = opts.client.rendersFor(opts.accessKeys, 'screenshot', { url: opts.url, ...opts.params });
  // Baseline (a) captures the same format: a png as Puppeteer encodes it by default.
  const image: ImageType = opts.params?.format === 'png' ? 'png' : 'jpeg';
  const fresh = () => opts.baselines.freshContext(opts.url, 'screenshot', image);
  const oursRates: number[] = [];
  const freshRates: number[] = [];
  // Warm-up at the same concurrency.
  await runConcurrently(opts.concurrency, opts.concurrency, ours);
  await runConcurrently(opts.concurrency, opts.concurrency, fresh);
  for (let r = 0; r < opts.rounds; r++) {
    const a = await runConcurrently(opts.renders, opts.concurrency, ours);
    const b = await runConcurrently(opts.renders, opts.concurrency, fresh);
    oursRates.push((opts.renders * 1000) / a);
    freshRates.push((opts.renders * 1000) / b);
  }
  const sorted = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
  return { concurrency: opts.concurrency, ours: sorted(oursRates), freshContext: sorted(freshRates) };
}
