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

/** The page's current DOM (after scripts ran, unless js_enabled is false) as HTML or Markdown. */
export async function scrapeContent(page: Page, params: RenderParams): Promise<Artifact> {
  const format = scrapeFormat(params.format);
  const html = await page.content();
  if (format === 'md') {
    return { body: Buffer.from(htmlToMarkdown(html), 'utf8'), contentType: 'text/markdown; charset=utf-8', extension: 'md' };
  }
  return { body: Buffer.from(html, 'utf8'), contentType: 'text/html; charset=utf-8', extension: 'html' };
}
