import type { Page } from 'puppeteer-core';
import { ValidationError } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import { htmlToMarkdown } from './markdown.js';
import type { Artifact } from './types.js';

export type ScrapeFormat = 'html' | 'md';

export function scrapeFormat(format: string | undefined): ScrapeFormat {
  if (format === undefined || format === '' || format === 'html') return 'html';
  if (format === 'md') return 'md';
  throw new ValidationError([{ parameter: 'format', message: 'format must be html or md' }]);
}

/**
 * Elements the render adds to the page, not the page's: autoconsent's styles (the prehide rules it keeps
 * while a cookie popup is being handled, its cosmetic rules, its debug styles).
 */
const INJECTED_ELEMENTS = 'style#autoconsent-prehide, style#autoconsent-css-rules, style#autoconsent-debug-styles, style#render-consent-prehide';

/**
 * The markup of the page's current DOM, as page.content() serializes it, without the elements the render
 * injected (read from a copy: the page itself is left as it is).
 */
function pageMarkup(page: Page): Promise<string> {
  return page.evaluate((injected: string) => {
    let markup = '';
    for (const node of document.childNodes) {
      if (node !== document.documentElement) {
        markup += new XMLSerializer().serializeToString(node);
        continue;
      }
      const root = document.documentElement;
      if (!root.querySelector(injected)) {
        markup += root.outerHTML;
        continue;
      }
      const copy = root.cloneNode(true) as Element;
      for (const element of copy.querySelectorAll(injected)) element.remove();
      markup += copy.outerHTML;
    }
    return markup;
  }, INJECTED_ELEMENTS);
}

/** The page's current DOM (after scripts ran, unless js_enabled is false) as HTML or Markdown. */
export async function scrapeContent(page: Page, params: RenderParams): Promise<Artifact> {
  const format = scrapeFormat(params.format);
  const html = await pageMarkup(page);
  if (format === 'md') {
    return { body: Buffer.from(htmlToMarkdown(html), 'utf8'), contentType: 'text/markdown; charset=utf-8', extension: 'md' };
  }
  return { body: Buffer.from(html, 'utf8'), contentType: 'text/html; charset=utf-8', extension: 'html' };
}
