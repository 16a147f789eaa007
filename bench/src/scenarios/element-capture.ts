import type { ServiceClient } from '../client.js';
import { treeRssKb } from './memory.js';
import { median, percentile, timed } from '../stats.js';

export interface ElementCaptureResult {
  url: string;
  /** p50 and p99 (ms) of each variant, rendered interleaved in the same run. */
  plain: { p50: number; p99: number };
  selector: { p50: number; p99: number };
  waitForSelector: { p50: number; p99: number };
}

/**
 * What `selector` (capture one element) and `wait_for_selector` (an element already there) cost a
 * screenshot of the bench page: each variant beside a plain screenshot, one at a time, interleaved render
 * by render in a rotating order, so drift on a shared machine weighs on all alike.
 */
export async function elementCaptureScenario(opts: {
  url: string;
  client: ServiceClient;
  warmup: number;
  runs: number;
  selector: string;
  params?: Record<string, unknown>;
}): Promise<ElementCaptureResult> {
  const variants = {
    plain: {},
    selector: { selector: opts.selector },
    waitForSelector: { wait_for_selector: opts.selector },
  } as const;
  const names = Object.keys(variants) as (keyof typeof variants)[];
  const times: Record<keyof typeof variants, number[]> = { plain: [], selector: [], waitForSelector: [] };
  for (let i = 0; i < opts.warmup + opts.runs; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length]!;
      const ms = await timed(() => opts.client.render('screenshot', { url: opts.url, ...opts.params, ...variants[name] }));
      if (i >= opts.warmup) times[name].push(ms);
    }
  }
  const summary = (v: number[]) => ({ p50: median(v), p99: percentile(v, 99) });
  return { url: opts.url, plain: summary(times.plain), selector: summary(times.selector), waitForSelector: summary(times.waitForSelector) };
}

export interface TallPageResult {
  /** Each render's wall time (ms) and HTTP status (200, or 500 render_timeout). */
  renders: { ms: number; status: number; code?: string }[];
  /** The renderer's resident memory (with its Chromium) before the first and 3 s after the last. */
  beforeKb: number;
  afterKb: number;
}

/**
 * Full-page screenshots of a 60,000 px page, one after another, with the timeout given: each must answer
 * within it (an image, or render_timeout), and the renderer's memory must come back to its level.
 */
export async function tallPageScenario(opts: {
  url: string;
  client: ServiceClient;
  rendererPid: number;
  runs: number;
  params: Record<string, unknown>;
}): Promise<TallPageResult> {
  await new Promise((r) => setTimeout(r, 2_000));
  const beforeKb = treeRssKb(opts.rendererPid);
  const renders: TallPageResult['renders'] = [];
  for (let i = 0; i < opts.runs; i++) {
    const started = performance.now();
    const res = await opts.client.call('/v1/screenshot', { url: opts.url, full_page: true, ...opts.params });
    const code = res.error ? (/"code":"(\w+)"/.exec(res.error)?.[1] ?? undefined) : undefined;
    renders.push({ ms: performance.now() - started, status: res.status, ...(code ? { code } : {}) });
  }
  await new Promise((r) => setTimeout(r, 3_000));
  return { renders, beforeKb, afterKb: treeRssKb(opts.rendererPid) };
}
