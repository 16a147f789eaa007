/// <reference lib="dom" />
import type { ElementHandle, Page, ScreenshotOptions } from 'puppeteer-core';
import { AppError, ValidationError } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import { quoteSelector } from './prepare/wait-for-selector.js';

/**
 * `selector`: captures the first element matching the selector that is rendered (has a box), scrolled
 * into view, whole even where it is larger than the viewport (Chromium captures beyond it). No such
 * element: 400 selector_not_found, or undefined with error_on_selector_not_found=false (the caller then
 * captures the viewport). Not valid CSS: 400 naming selector.
 */
export async function captureElement(page: Page, params: RenderParams, options: ScreenshotOptions): Promise<Uint8Array | undefined> {
  const selector = params.selector;
  if (!selector) return undefined;
  const found = await page.evaluateHandle((s: string) => {
    let elements: Element[];
    try {
      elements = [...document.querySelectorAll(s)];
    } catch {
      return 'invalid';
    }
    return (
      elements.find((element) => {
        const box = element.getBoundingClientRect();
        return box.width > 0 && box.height > 0;
      }) ?? null
    );
  }, selector);
  const element = found.asElement() as ElementHandle<Element> | null;
  if (!element) {
    const invalid = (await found.jsonValue().catch(() => null)) === 'invalid';
    await found.dispose();
    if (invalid) throw new ValidationError([{ parameter: 'selector', message: 'selector is not a valid CSS selector' }]);
    if (params.error_on_selector_not_found === false) return undefined;
    throw new AppError('selector_not_found', `selector: no visible element matches ${quoteSelector(selector)}.`, {
      details: [{ parameter: 'selector', message: `no visible element matches ${quoteSelector(selector)}` }],
    });
  }
  try {
    const { type, quality, omitBackground, optimizeForSpeed } = options;
    return await element.screenshot({ type, quality, omitBackground, optimizeForSpeed, captureBeyondViewport: true });
  } finally {
    await element.dispose().catch(() => undefined);
  }
}
