import { z } from 'zod';
import type { ParameterProblem } from '@app/errors';
import { boolParam, numberParam, stringParam } from './coerce.js';
import { cssLengthInches, normalizeCssLength } from './css-length.js';
import type { Operation } from './parameters.js';

const PDF: Operation[] = ['pdf'];

/** The largest page a PDF may have (200 in, PDF's own limit of 14,400 points). */
export const MAX_PDF_SIDE_INCHES = 200;
/** Longest header or footer template, in characters. */
export const MAX_PDF_TEMPLATE_LENGTH = 50_000;

const UNITS = 'a CSS length: a number with px, in, cm, mm or pt (a bare number is in px)';

/** A length of the paper or a margin: kept as `<number><unit>`, at most MAX_PDF_SIDE_INCHES. */
const cssLength = (opts: { positive: boolean }) =>
  z
    .preprocess((v) => normalizeCssLength(v) ?? v, z.string({ error: `must be ${UNITS}` }))
    .refine((v) => normalizeCssLength(v) === v, { error: `must be ${UNITS}, such as 12mm, 1in or 40px` })
    .refine((v) => !(cssLengthInches(v) > MAX_PDF_SIDE_INCHES), { error: `must be at most ${MAX_PDF_SIDE_INCHES}in` })
    .refine((v) => !opts.positive || cssLengthInches(v) > 0, { error: 'must be more than 0' });

const PAGE_RANGE_ITEM = /^(?:(\d+)(?:\s*-\s*(\d*))?|-\s*(\d+))$/;

/** Chromium's page ranges (`1-3,5`, `7-` to the end, `-2` from the first page), each start no later than its end. */
export function pageRangesProblem(value: string): string | undefined {
  const items = value.split(',').map((s) => s.trim());
  if (items.length > 100) return 'must have at most 100 ranges';
  for (const item of items) {
    const m = PAGE_RANGE_ITEM.exec(item);
    if (!m) return 'must be page numbers and ranges such as 1-3,5 (7- to the end, -2 from the first page)';
    const [from, to] = m[3] !== undefined ? [1, Number(m[3])] : [Number(m[1]), m[2] ? Number(m[2]) : Number.POSITIVE_INFINITY];
    if (from < 1 || to < 1) return 'page numbers start at 1';
    if (from > to) return `${item}: a range must not end before it starts`;
  }
  return undefined;
}

const pageRanges = stringParam({ max: 1_000 }).superRefine((v, ctx) => {
  const problem = pageRangesProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const template = (where: string) => ({
  operations: PDF,
  schema: stringParam({ max: MAX_PDF_TEMPLATE_LENGTH }),
  description:
    `HTML template printed at the ${where} of every page. Elements with the classes pageNumber, totalPages, date, title and url are filled in by the browser ` +
    '(`<span class="pageNumber"></span>`). The page\'s styles do not apply: style the template inline (its default font size is tiny); images must be data: URLs. ' +
    `Printed in the ${where} margin, which is 1cm unless pdf_margin or pdf_margin_${where === 'top' ? 'top' : 'bottom'} is given.`,
});

const margin = (side: string) => ({
  operations: PDF,
  schema: cssLength({ positive: false }),
  description: `Margin at the ${side} of every page (${UNITS}); overrides pdf_margin for that side.`,
});

/** The PDF parameters beyond paper format, orientation and background. */
export const PDF_PARAMETERS = {
  pdf_margin: {
    operations: PDF,
    schema: cssLength({ positive: false }),
    description: `Margin on all four sides of every page (${UNITS}). Default 0 (the page's CSS @page margins do not apply unless pdf_prefer_css_page_size).`,
  },
  pdf_margin_top: margin('top'),
  pdf_margin_right: margin('right'),
  pdf_margin_bottom: margin('bottom'),
  pdf_margin_left: margin('left'),
  pdf_scale: { operations: PDF, schema: numberParam({ min: 0.1, max: 2 }), description: 'Scale of the printed page (1 is 100 %).', default: 1 },
  pdf_header: template('top'),
  pdf_footer: template('bottom'),
  pdf_page_ranges: {
    operations: PDF,
    schema: pageRanges,
    description: 'Pages to keep, such as 1-3,5 (7- to the end, -2 from the first page). Pages past the end of the document: 400 invalid_parameter.',
  },
  pdf_prefer_css_page_size: {
    operations: PDF,
    schema: boolParam(),
    description: "Use the page's CSS @page size (and margins) where it declares one, instead of the paper format or pdf_width/pdf_height.",
    default: false,
  },
  pdf_width: {
    operations: PDF,
    schema: cssLength({ positive: true }),
    description: `Paper width (${UNITS}) instead of pdf_paper_format; the height is pdf_height, or letter's when not given.`,
  },
  pdf_height: {
    operations: PDF,
    schema: cssLength({ positive: true }),
    description: `Paper height (${UNITS}) instead of pdf_paper_format; the width is pdf_width, or letter's when not given.`,
  },
};

type Values = Record<string, unknown>;
const given = (values: Values, name: string) => values[name] !== undefined;

/** Combinations of PDF parameters that are refused (each parameter being valid alone). */
export function pdfParameterProblems(values: Values): ParameterProblem[] {
  const problems: ParameterProblem[] = [];
  const size = ['pdf_width', 'pdf_height'].find((n) => given(values, n));
  if (size && given(values, 'pdf_paper_format')) {
    problems.push({ parameter: size, message: `give either pdf_paper_format or pdf_width/pdf_height, not both` });
  }
  if (given(values, 'clip_width')) {
    const stray = ['pdf_width', 'pdf_height', 'pdf_page_ranges'].find((n) => given(values, n));
    if (stray) problems.push({ parameter: stray, message: `${stray} cannot be combined with clip_* (a clip prints one page of its own size)` });
  }
  return problems;
}
