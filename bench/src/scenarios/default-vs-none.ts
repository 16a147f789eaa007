import type { ServiceClient } from '../client.js';
import { median, percentile, timed } from '../stats.js';

export interface DefaultVsNoneResult {
  url: string;
  /** Screenshots with the defaults (block_annoyance=cookies_banner). */
  defaults: { p50: number; p99: number };
  /** The same screenshots with block_annoyance=none. */
  none: { p50: number; p99: number };
}

/**
 * What the default cookie banner handling costs one screenshot: the default and block_annoyance=none
 * rendered one at a time, interleaved render by render, so drift on a shared machine weighs on both alike.
 */
export async function defaultVsNoneScenario(opts: { url: string; client: ServiceClient; warmup: number; runs: number }): Promise<DefaultVsNoneResult> {
  const defaults: number[] = [];
  const none: number[] = [];
  for (let i = 0; i < opts.warmup + opts.runs; i++) {
    // Alternate which goes first, so neither always follows the other's render.
    const order = i % 2 === 0 ? ['default', 'none'] : ['none', 'default'];
    for (const which of order) {
      const ms = await timed(() => opts.client.render('screenshot', which === 'none' ? { url: opts.url, block_annoyance: 'none' } : { url: opts.url }));
      if (i >= opts.warmup) (which === 'none' ? none : defaults).push(ms);
    }
  }
  const summary = (v: number[]) => ({ p50: median(v), p99: percentile(v, 99) });
  return { url: opts.url, defaults: summary(defaults), none: summary(none) };
}
