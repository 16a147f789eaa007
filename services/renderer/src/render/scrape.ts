import type { Page } from 'puppeteer-core';
import { ValidationError } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import type { Artifact } from './types.js';

export type ScrapeFormat = 'html';

export function scrapeFormat(format: string | undefined): ScrapeFormat {
  if (format === undefined || format === '' || format === 'html') return 'html';
  const message = format === 'md' ? 'format md is not available yet; use html' : 'format must be html or md';
  throw new ValidationError([{ parameter: 'format', message }]);
}

/** The page's current DOM serialized as HTML (after scripts ran, unless js_enabled is false). */
export async function scrapeContent(page: Page, params: RenderParams): Promise<Artifact> {
  scrapeFormat(params.format);
  const html = await page.content();
  return { body: Buffer.from(html, 'utf8'), contentType: 'text/html; charset=utf-8', extension: 'html' };
}
