/// <reference lib="dom" />
import type { Page } from 'puppeteer-core';

export const DEFAULT_SCROLL_STEP_MS = 400;

/** Time a full-page capture keeps back from the scroll before it: its images and the capture of up to full_page_max_height. */
const FULL_PAGE_CAPTURE_RESERVE_MS = 8_000;

/**
 * How long full_page_scroll may scroll with `remainingMs` of the render left: the capture's reserve
 * (half the time left when that is less) and `delay` (seconds) are kept back, so a page that grows
 * forever is still captured within the timeout.
 */
export function fullPageScrollBudgetMs(remainingMs: number, delaySeconds = 0): number {
  return remainingMs - Math.min(FULL_PAGE_CAPTURE_RESERVE_MS, remainingMs / 2) - delaySeconds * 1000;
}

export interface ScrollPlan {
  /** Pixels per step; the viewport height when absent. */
  amount?: number | undefined;
  /** Milliseconds per step. */
  durationMs: number;
  /** Scrolling stops when this is spent, whatever is left of the page. */
  budgetMs: number;
  /** Scrolling stops once the viewport's bottom reached this (CSS pixels): a page that grows forever ends there. */
  maxHeight?: number | undefined;
}

/**
 * full_page_scroll: scrolls down the page step by step (so content loaded on scroll appears), as far
 * as the budget and `maxHeight` let it, then back to the top. Returns how many steps were taken.
 */
export async function scrollThrough(page: Page, plan: ScrollPlan): Promise<number> {
  if (plan.budgetMs <= 0) return 0;
  return page.evaluate(
    async ({ amount, durationMs, budgetMs, maxHeight }) => {
      const started = Date.now();
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const step = amount ?? Math.max(1, innerHeight);
      let steps = 0;
      const end = () => Math.min(document.documentElement.scrollHeight, maxHeight ?? Infinity);
      while (scrollY + innerHeight < end() && Date.now() - started + durationMs <= budgetMs) {
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
    { amount: plan.amount, durationMs: plan.durationMs, budgetMs: plan.budgetMs, maxHeight: plan.maxHeight },
  );
}
