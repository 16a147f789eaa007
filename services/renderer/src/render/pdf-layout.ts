import type { PDFOptions } from 'puppeteer-core';
import { AppError, ValidationError } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import { cssLengthInches } from '@app/render-params';

/** Paper sizes in inches, portrait (width, height), as the browser prints them. */
const PAPER_INCHES: Readonly<Record<string, readonly [number, number]>> = {
  letter: [8.5, 11],
  legal: [8.5, 14],
  tabloid: [11, 17],
  ledger: [17, 11],
  a0: [33.1102, 46.811],
  a1: [23.3858, 33.1102],
  a2: [16.5354, 23.3858],
  a3: [11.6929, 16.5354],
  a4: [8.2677, 11.6929],
  a5: [5.8268, 8.2677],
  a6: [4.1339, 5.8268],
};

/** The margin a header or footer gets when none is given for its side: without one it would not show. */
export const HEADER_FOOTER_MARGIN = '1cm';
/** Prints nothing: stands for the template not given, which the browser would fill with its own (date, title). */
const EMPTY_TEMPLATE = '<span></span>';

type Side = 'top' | 'right' | 'bottom' | 'left';
const SIDES: readonly Side[] = ['top', 'right', 'bottom', 'left'];

function marginOf(params: RenderParams, side: Side): string | undefined {
  const own = params[`pdf_margin_${side}`];
  if (own !== undefined) return own;
  if (params.pdf_margin !== undefined) return params.pdf_margin;
  if (side === 'top' && params.pdf_header !== undefined) return HEADER_FOOTER_MARGIN;
  if (side === 'bottom' && params.pdf_footer !== undefined) return HEADER_FOOTER_MARGIN;
  return undefined;
}

/** Width and height of the sheet in inches, as printed (pdf_landscape turns it). */
function sheetInches(params: RenderParams): [number, number] {
  const [paperWidth, paperHeight] = PAPER_INCHES[params.pdf_paper_format ?? 'letter'] ?? PAPER_INCHES.letter!;
  const width = params.pdf_width !== undefined ? cssLengthInches(params.pdf_width) : paperWidth;
  const height = params.pdf_height !== undefined ? cssLengthInches(params.pdf_height) : paperHeight;
  return params.pdf_landscape ? [height, width] : [width, height];
}

/**
 * Margins, scale, header and footer, page ranges, CSS page size and a sheet of pdf_width × pdf_height,
 * as Puppeteer options (added to the paper format's). Margins that leave no room for content are the
 * caller's mistake: 400 naming the margin.
 */
export function pdfLayoutOptions(params: RenderParams): PDFOptions {
  const options: PDFOptions = {};
  const margin: Partial<Record<Side, string>> = {};
  for (const side of SIDES) {
    const value = marginOf(params, side);
    if (value !== undefined) margin[side] = value;
  }
  if (Object.keys(margin).length > 0) {
    const [width, height] = sheetInches(params);
    const inches = (side: Side) => (margin[side] === undefined ? 0 : cssLengthInches(margin[side]!));
    const tooWide = inches('left') + inches('right') >= width;
    const tooTall = inches('top') + inches('bottom') >= height;
    if (tooWide || tooTall) {
      const sides = tooWide ? ['left', 'right'] : ['top', 'bottom'];
      const parameter = sides.map((s) => `pdf_margin_${s}`).find((n) => params[n as keyof RenderParams] !== undefined) ?? 'pdf_margin';
      throw new ValidationError([
        { parameter, message: `${parameter}: the ${sides.join(' and ')} margins leave no room on a sheet ${tooWide ? width.toFixed(2) : height.toFixed(2)}in ${tooWide ? 'wide' : 'tall'}` },
      ]);
    }
    options.margin = margin;
  }
  if (params.pdf_scale !== undefined) options.scale = params.pdf_scale;
  if (params.pdf_header !== undefined || params.pdf_footer !== undefined) {
    options.displayHeaderFooter = true;
    options.headerTemplate = params.pdf_header ?? EMPTY_TEMPLATE;
    options.footerTemplate = params.pdf_footer ?? EMPTY_TEMPLATE;
  }
  if (params.pdf_page_ranges !== undefined) options.pageRanges = params.pdf_page_ranges;
  if (params.pdf_prefer_css_page_size) options.preferCSSPageSize = true;
  if (params.pdf_width !== undefined || params.pdf_height !== undefined) {
    const [width, height] = PAPER_INCHES[params.pdf_paper_format ?? 'letter'] ?? PAPER_INCHES.letter!;
    options.width = params.pdf_width ?? `${width}in`;
    options.height = params.pdf_height ?? `${height}in`;
  }
  return options;
}

const PAGE_RANGE_ERROR = /page range/i;

/** The browser refuses page ranges past the document's end: the caller's mistake, 400 naming pdf_page_ranges. */
export function pdfPrintError(err: unknown, params: RenderParams): unknown {
  if (params.pdf_page_ranges === undefined || err instanceof AppError || !(err instanceof Error) || !PAGE_RANGE_ERROR.test(err.message)) return err;
  return new ValidationError([
    { parameter: 'pdf_page_ranges', message: `pdf_page_ranges ${params.pdf_page_ranges} names pages the document does not have` },
  ]);
}
