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
  assertValid(invalid);
}

/** hide_selectors on a scrape: every matching element is removed from the document the content is read from. */
export async function removeSelectors(page: Page, selectors: readonly string[]): Promise<void> {
  if (selectors.length === 0) return;
  const invalid = await page.evaluate((list: string[]) => {
    const bad: string[] = [];
    for (const selector of list) {
      try {
        for (const element of document.querySelectorAll(selector)) element.remove();
      } catch {
        bad.push(selector);
      }
    }
    return bad;
  }, [...selectors]);
  assertValid(invalid);
}

function assertValid(invalid: string[]): void {
  if (invalid.length > 0) {
    throw new ValidationError([
      { parameter: 'hide_selectors', message: `hide_selectors: ${invalid.map((s) => JSON.stringify(s)).join(', ')} is not a valid CSS selector` },
    ]);
  }
}
