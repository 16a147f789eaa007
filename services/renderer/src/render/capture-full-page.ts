/// <reference lib="dom" />
import type { Page, ScreenshotOptions } from 'puppeteer-core';
import { FULL_PAGE_MAX_HEIGHT } from '@app/render-params';
import type { RenderParams } from '@app/proto/render';
import type { Countdown } from './countdown.js';

/** The tallest image each format can hold, in image pixels (WebP's and JPEG's own limits). */
const FORMAT_MAX_HEIGHT: Partial<Record<NonNullable<ScreenshotOptions['type']>, number>> = { webp: 16_383, jpeg: 65_535 };
/** Lazy images are waited for at most this long... */
const LAZY_IMAGES_WAIT_MS = 5_000;
/** ...and never into the time the capture itself needs. */
const CAPTURE_RESERVE_MS = 3_000;
/** The captured part's images count as loaded once none of them was pending for this long. */
const QUIET_MS = 300;

/**
 * Where a full-page capture stops (CSS pixels): full_page_max_height, or lower where the format cannot
 * hold that many image pixels at the device scale factor.
 */
export function fullPageHeightCap(maxHeight: number | undefined, type: ScreenshotOptions['type'], deviceScaleFactor = 1): number {
  const cap = maxHeight ?? FULL_PAGE_MAX_HEIGHT.default;
  const formatMax = type ? FORMAT_MAX_HEIGHT[type] : undefined;
  return formatMax === undefined ? cap : Math.min(cap, Math.floor(formatMax / deviceScaleFactor));
}

/**
 * A full-page capture that stops at full_page_max_height (the top of the page, that high). Without
 * capture_beyond_viewport the viewport is made the captured size, as Puppeteer's own full page does,
 * so lazy content of that part loads as if seen; with it, native lazy images of that part are made
 * eager. Either way the images of the captured part are waited for (bounded by the render's time)
 * before the capture, and the viewport is given back after it.
 */
export async function captureFullPage(
  page: Page,
  options: ScreenshotOptions,
  params: Pick<RenderParams, 'full_page_max_height'>,
  clock: Countdown,
): Promise<Uint8Array> {
  const viewport = page.viewport();
  const maxHeight = fullPageHeightCap(params.full_page_max_height, options.type, viewport?.deviceScaleFactor ?? 1);
  const { type, quality, omitBackground, optimizeForSpeed } = options;
  const shot: ScreenshotOptions = { type, quality, omitBackground, optimizeForSpeed };
  const size = await documentSize(page);
  const height = Math.min(size.height, maxHeight);
  if (options.captureBeyondViewport) {
    await loadImagesAbove(page, height, clock);
    return page.screenshot({ ...shot, captureBeyondViewport: true, clip: { x: 0, y: 0, width: size.width, height } });
  }
  await page.setViewport({ ...(viewport ?? { width: size.width, height }), width: size.width, height });
  try {
    // A page taller than the part captured shows its top.
    await page.evaluate(() => scrollTo(0, 0));
    await loadImagesAbove(page, height, clock);
    return await page.screenshot({ ...shot, captureBeyondViewport: false });
  } finally {
    if (viewport) await page.setViewport(viewport).catch(() => undefined);
  }
}

const documentSize = (page: Page) =>
  page.evaluate(() => ({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight }));

/**
 * The images whose top is above `height` are loaded: native lazy ones are made eager, script-lazy
 * ones (an IntersectionObserver setting `src`) had their chance when the viewport grew; then every
 * such image is awaited until it loaded or failed, and two frames painted.
 */
async function loadImagesAbove(page: Page, height: number, clock: Countdown): Promise<void> {
  const waitMs = Math.min(LAZY_IMAGES_WAIT_MS, clock.remainingMs() - CAPTURE_RESERVE_MS);
  if (waitMs <= 0) return;
  await page
    .evaluate(
      async (limit: number, budgetMs: number, quietMs: number) => {
        const started = Date.now();
        const frames = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
        const inPart = (img: HTMLImageElement) => img.getBoundingClientRect().top + scrollY < limit;
        const pending = () => [...document.images].filter((img) => inPart(img) && !img.complete);
        for (const img of document.images) if (img.loading === 'lazy' && inPart(img)) img.loading = 'eager';
        // Observers called back by the new viewport set their images' sources: the part counts as
        // loaded once no image of it has been pending for a quiet while.
        await frames();
        let quietSince = Date.now();
        while (Date.now() - started < budgetMs) {
          if (pending().length > 0) quietSince = Date.now();
          else if (Date.now() - quietSince >= quietMs) break;
          await sleep(50);
        }
        await frames();
      },
      height,
      waitMs,
      QUIET_MS,
    )
    .catch(() => undefined);
}
