/// <reference lib="dom" />
import type { Page } from 'puppeteer-core';
import { ValidationError } from '@app/errors';

/**
 * hide_selectors: every matching element is taken out of the rendering (display:none), through a
 * constructed style sheet, which a Content-Security-Policy does not stop. Each selector is its own
 * rule, so an invalid one is reported by name and does not void the others.
 */
export async function hideSelectors(page: Page, selectors: readonly string[]): Promise<void> {
  if (selectors.length === 0) return;
  const invalid = await page.evaluate((list: string[]) => {
    const sheet = new CSSStyleSheet();
    const bad: string[] = [];
    for (const selector of list) {
      try {
        document.querySelector(selector);
        sheet.insertRule(`${selector} { display: none !important; }`, sheet.cssRules.length);
      } catch {
        bad.push(selector);
      }
    }
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    return bad;
  }, [...selectors]);
  if (invalid.length > 0) {
    throw new ValidationError([
      { parameter: 'hide_selectors', message: `hide_selectors: ${invalid.map((s) => JSON.stringify(s)).join(', ')} is not a valid CSS selector` },
    ]);
  }
}
