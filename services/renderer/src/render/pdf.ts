import type { Page, PaperFormat, PDFOptions } from 'puppeteer-core';
import { ValidationError } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import type { Countdown } from './countdown.js';
import { toBuffer } from './to-buffer.js';
import type { Artifact } from './types.js';

export const PAPER_FORMATS = ['letter', 'legal', 'tabloid', 'ledger', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6'] as const;
export const DEFAULT_PAPER_FORMAT = 'letter';

export function paperFormat(value: string | undefined): PaperFormat {
  const format = (value || DEFAULT_PAPER_FORMAT).toLowerCase();
  if ((PAPER_FORMATS as readonly string[]).includes(format)) return format as PaperFormat;
  throw new ValidationError([
    { parameter: 'pdf_paper_format', message: `pdf_paper_format must be one of ${PAPER_FORMATS.join(', ')}` },
  ]);
}

export function pdfOptions(params: RenderParams, timeoutMs: number): PDFOptions {
  return {
    format: paperFormat(params.pdf_paper_format),
    landscape: params.pdf_landscape ?? false,
    printBackground: params.pdf_print_background ?? false,
    timeout: timeoutMs,
  };
}

export async function printPdf(page: Page, params: RenderParams, clock: Countdown): Promise<Artifact> {
  const bytes = await page.pdf(pdfOptions(params, clock.remainingMs()));
  return { body: toBuffer(bytes), contentType: 'application/pdf', extension: 'pdf' };
}
