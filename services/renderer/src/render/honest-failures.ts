/// <reference lib="dom" />
import type { Page } from 'puppeteer-core';
import { AppError } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import { statusMatches } from '@app/render-params';

/** fail_on_status: the page's main document answered one of the listed statuses. */
export function failOnStatus(params: RenderParams, status: number | undefined): void {
  // Repeated fields are [] once decoded or validated; a RenderParams built by hand may lack them.
  const listed = params.fail_on_status ?? [];
  if (status === undefined || listed.length === 0 || !statusMatches(status, listed)) return;
  throw new AppError('host_returned_error', `The page answered HTTP ${status}, a status fail_on_status lists.`, {
    details: [{ parameter: 'fail_on_status', message: `the page answered ${status}`, returned_status_code: status }],
  });
}

/** Case and runs of white space do not matter: "Verify  you\nare human" holds "verify you are human". */
const comparable = (text: string) => text.replace(/\s+/g, ' ').trim().toLocaleLowerCase();

/**
 * fail_if_content_contains / fail_if_content_missing, against the text the page shows (its body's
 * innerText: what is hidden by CSS, scripts and styles are not text) once it is ready.
 */
export async function failOnContent(page: Page, params: RenderParams): Promise<void> {
  const contains = params.fail_if_content_contains ?? [];
  const missing = params.fail_if_content_missing ?? [];
  if (contains.length === 0 && missing.length === 0) return;
  const text = comparable(await page.evaluate(() => document.body?.innerText ?? document.documentElement?.innerText ?? ''));
  const found = contains.find((s) => text.includes(comparable(s)));
  if (found !== undefined) {
    throw new AppError('content_contains_specified_string', `The page's text contains "${found}", a string fail_if_content_contains lists.`, {
      details: [{ parameter: 'fail_if_content_contains', message: 'the page shows this string', matched_string: found }],
    });
  }
  const absent = missing.find((s) => !text.includes(comparable(s)));
  if (absent !== undefined) {
    throw new AppError('content_missing_specified_string', `The page's text lacks "${absent}", a string fail_if_content_missing lists.`, {
      details: [{ parameter: 'fail_if_content_missing', message: 'the page does not show this string', matched_string: absent }],
    });
  }
}
