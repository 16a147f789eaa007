import type { ServiceClient } from '../client.js';
import { percentile, runConcurrently, timed } from '../stats.js';
import { treeRssKb } from './memory.js';

export interface ScreencastResult {
  durationSeconds: number;
  runs: number;
  p50Ms: number;
  p99Ms: number;
  /** p50 wall time beyond the recorded duration: loading, encoding, storing, transport. */
  overheadP50Ms: number;
  memory: { screencasts: number; after10Kb: number; afterAllKb: number };
}

/**
 * (8) A scroll screencast of a long page, one at a time: wall time of the whole request against the
 * recorded `duration`. Then the renderer's memory (with its Chromium and encoders) over many screencasts.
 */
export async function screencastScenario(opts: {
  url: string;
  client: ServiceClient;
  rendererPid: number;
  runs: number;
  durationSeconds: number;
  memoryRuns: number;
}): Promise<ScreencastResult> {
  const cast = (duration: number) => () =>
    opts.client.render('screencast', { url: opts.url, scenario: 'scroll', duration, block_annoyance: 'none' });
  await cast(1)();
  const times: number[] = [];
  for (let i = 0; i < opts.runs; i++) times.push(await timed(cast(opts.durationSeconds)));
  const p50Ms = percentile(times, 50);

  const short = cast(1);
  await runConcurrently(10, 2, short);
  await new Promise((r) => setTimeout(r, 2_000));
  const after10Kb = treeRssKb(opts.rendererPid);
  await runConcurrently(opts.memoryRuns - 10, 2, short);
  await new Promise((r) => setTimeout(r, 2_000));
  return {
    durationSeconds: opts.durationSeconds,
    runs: opts.runs,
    p50Ms,
    p99Ms: percentile(times, 99),
    overheadP50Ms: p50Ms - opts.durationSeconds * 1000,
    memory: { screencasts: opts.memoryRuns, after10Kb, afterAllKb: treeRssKb(opts.rendererPid) },
  };
}
