/// <reference lib="dom" />
import type { Page, PaperFormat, PDFOptions } from 'puppeteer-core';
import { ValidationError } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import type { Countdown } from './countdown.js';
import { pdfLayoutOptions, pdfPrintError } from './pdf-layout.js';
import { clipOf } from './screenshot.js';
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

/**
 * Puppeteer options. With clip_* the PDF is one page of exactly the clip's size showing that region
 * (the paper format does not apply).
 */
export function pdfOptions(params: RenderParams, timeoutMs: number): PDFOptions {
  const clip = clipOf(params);
  const base: PDFOptions = {
    landscape: params.pdf_landscape ?? false,
    printBackground: params.pdf_print_background ?? false,
    timeout: timeoutMs,
  };
  if (!clip) {
    const layout = pdfLayoutOptions(params);
    // pdf_width / pdf_height stand instead of the paper format.
    return layout.width === undefined ? { format: paperFormat(params.pdf_paper_format), ...base, ...layout } : { ...base, ...layout };
  }
  return { ...base, ...pdfLayoutOptions(params), landscape: false, width: `${clip.width}px`, height: `${clip.height}px`, pageRanges: '1' };
}

/** Shifts the page so the clip's top-left corner is the paper's (a constructed sheet: CSP does not stop it). */
async function shiftToClip(page: Page, x: number, y: number): Promise<void> {
  if (x === 0 && y === 0) return;
  await page.evaluate(
    (dx: number, dy: number) => {
      const sheet = new CSSStyleSheet();
      sheet.insertRule(`html { transform: translate(${-dx}px, ${-dy}px) !important; transform-origin: 0 0 !important; }`);
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    },
    x,
    y,
  );
}

export async function printPdf(page: Page, params: RenderParams, clock: Countdown): Promise<Artifact> {
  const clip = clipOf(params);
  if (clip) await shiftToClip(page, clip.x, clip.y);
  const options = pdfOptions(params, clock.remainingMs());
  const bytes = await page.pdf(options).catch((err: unknown) => {
    throw pdfPrintError(err, params);
  });
  return { body: toBuffer(bytes), contentType: 'application/pdf', extension: 'pdf' };
}
