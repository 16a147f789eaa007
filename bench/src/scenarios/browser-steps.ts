import type { SignInSite } from '@app/testkit';
import type { ServiceClient } from '../client.js';
import { median, percentile, timed } from '../stats.js';

export interface BrowserStepsResult {
  /** p50 and p99 (ms) of each variant, rendered interleaved in the same run. */
  plain: { p50: number; p99: number };
  steps: { p50: number; p99: number };
  /** Sign-in forms the site received from the renders with steps (one each: every one signed in). */
  signIns: number;
}

/**
 * What four browser steps that sign in cost a scrape: a scrape of a sign-in site's form page with steps
 * that type the user, type the password from an account secret, click the sign-in button (the form is
 * posted, the site answers with its account page) and wait for the balance, beside a plain scrape of the
 * same page, one at a time and interleaved render by render (alternating which goes first), so drift on
 * a shared machine weighs on both alike. Each render with steps must have signed in: the site counts the
 * forms posted.
 */
export async function browserStepsScenario(opts: {
  site: SignInSite;
  user: string;
  /** The account secret holding the site's password (created by the caller). */
  secret: string;
  client: ServiceClient;
  warmup: number;
  runs: number;
  params?: Record<string, unknown>;
}): Promise<BrowserStepsResult> {
  const url = `${opts.site.origin}/login`;
  const steps = [
    { action: 'type', selector: '#user', text: opts.user },
    { action: 'type', selector: '#password', secret: opts.secret },
    { action: 'click', selector: '#sign-in' },
    { action: 'wait_for_selector', selector: '#balance' },
  ];
  const variants = { plain: {}, steps: { steps } } as const;
  const names = Object.keys(variants) as (keyof typeof variants)[];
  const times: Record<keyof typeof variants, number[]> = { plain: [], steps: [] };
  const before = opts.site.signIns();
  for (let i = 0; i < opts.warmup + opts.runs; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length]!;
      const ms = await timed(() => opts.client.render('scrape', { url, format: 'html', ...opts.params, ...variants[name] }));
      if (i >= opts.warmup) times[name].push(ms);
    }
  }
  const signIns = opts.site.signIns() - before;
  if (signIns !== opts.warmup + opts.runs) throw new Error(`the renders with steps posted ${signIns} sign-in forms, not ${opts.warmup + opts.runs}`);
  const summary = (v: number[]) => ({ p50: median(v), p99: percentile(v, 99) });
  return { plain: summary(times.plain), steps: summary(times.steps), signIns };
}
