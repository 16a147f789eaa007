/// <reference lib="dom" />
import type { Page } from 'puppeteer-core';
import type { ScrollEasing } from '@app/render-params';

export interface ScrollPlan {
  /** Pixels per step. */
  amount: number;
  /** Pause before each step, in milliseconds. */
  delayMs: number;
  /** How long one step's movement takes, in milliseconds. */
  durationMs: number;
  /** Back to the top once the bottom is reached. */
  back: boolean;
  /** Pause at the bottom before going back, in milliseconds. */
  backDelayMs: number;
  easing: ScrollEasing;
}

export interface Curve {
  kind: 'linear' | 'in' | 'out' | 'in_out';
  power: number;
}

const POWERS = { quad: 2, cubic: 3, quart: 4, quint: 5 } as const;

/** `ease_in_out_cubic` → { kind: 'in_out', power: 3 }. */
export function curveOf(easing: ScrollEasing): Curve {
  const match = /^ease_(in|out|in_out)_(quad|cubic|quart|quint)$/.exec(easing);
  if (!match) return { kind: 'linear', power: 1 };
  return { kind: match[1] as Curve['kind'], power: POWERS[match[2] as keyof typeof POWERS] };
}

/**
 * The `scroll` scenario, run in the page while it is recorded: wait `delayMs`, glide down by `amount`
 * over `durationMs` along the easing curve, and again until the bottom; then, with `back`, wait
 * `backDelayMs` and glide back to the top the same way. Resolves when done (or never, if the
 * recording ends first and the page is closed).
 */
export function runScrollScenario(page: Page, plan: ScrollPlan): Promise<void> {
  const curve = curveOf(plan.easing);
  return page.evaluate(
    async ({ amount, delayMs, durationMs, back, backDelayMs, kind, power }) => {
      const ease = (t: number): number => {
        if (kind === 'in') return t ** power;
        if (kind === 'out') return 1 - (1 - t) ** power;
        if (kind === 'in_out') return t < 0.5 ? 2 ** (power - 1) * t ** power : 1 - (-2 * t + 2) ** power / 2;
        return t;
      };
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      const root = document.scrollingElement ?? document.documentElement;
      const bottom = () => Math.max(0, root.scrollHeight - innerHeight);
      const glide = async (from: number, to: number) => {
        const started = performance.now();
        for (;;) {
          await nextFrame();
          const t = Math.min(1, (performance.now() - started) / durationMs);
          scrollTo({ top: from + (to - from) * ease(t), behavior: 'instant' });
          if (t >= 1) return;
        }
      };
      while (scrollY < bottom() - 1) {
        await sleep(delayMs);
        const from = scrollY;
        await glide(from, Math.min(from + amount, bottom()));
        if (scrollY <= from) break; // the page does not scroll (any more)
      }
      if (back && scrollY > 0) {
        await sleep(backDelayMs);
        await glide(scrollY, 0);
      }
    },
    { ...plan, kind: curve.kind, power: curve.power },
  );
}
