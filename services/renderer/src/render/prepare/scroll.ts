/// <reference lib="dom" />
import type { Page } from 'puppeteer-core';

export const DEFAULT_SCROLL_STEP_MS = 400;

export interface ScrollPlan {
  /** Pixels per step; the viewport height when absent. */
  amount?: number | undefined;
  /** Milliseconds per step. */
  durationMs: number;
  /** Scrolling stops when this is spent, whatever is left of the page. */
  budgetMs: number;
}

/**
 * full_page_scroll: scrolls down the page step by step (so content loaded on scroll appears), then
 * back to the top. Returns how many steps were taken.
 */
export async function scrollThrough(page: Page, plan: ScrollPlan): Promise<number> {
  if (plan.budgetMs <= 0) return 0;
  return page.evaluate(
    async ({ amount, durationMs, budgetMs }) => {
      const started = Date.now();
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const step = amount ?? Math.max(1, innerHeight);
      let steps = 0;
      while (scrollY + innerHeight < document.documentElement.scrollHeight && Date.now() - started + durationMs <= budgetMs) {
        const before = scrollY;
        scrollBy(0, step);
        steps++;
        await sleep(durationMs);
        if (scrollY === before) break;
      }
      scrollTo(0, 0);
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      return steps;
    },
    { amount: plan.amount, durationMs: plan.durationMs, budgetMs: plan.budgetMs },
  );
}
