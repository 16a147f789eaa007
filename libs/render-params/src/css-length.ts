/** Units a PDF length may be given in, with their size in inches (a CSS pixel is 1/96 in). */
const INCHES_PER_UNIT: Readonly<Record<string, number>> = { px: 1 / 96, in: 1, cm: 1 / 2.54, mm: 1 / 25.4, pt: 1 / 72 };

const LENGTH = /^(\d+(?:\.\d+)?|\.\d+)\s*(px|in|cm|mm|pt)?$/i;

/** A length as the browser's printer takes it: `12mm`, `1in`, `2.5cm`, `30px`, `10pt`; a bare number is in pixels. */
export function normalizeCssLength(value: unknown): string | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) && value >= 0 ? String(value) : value;
  if (typeof text !== 'string') return undefined;
  const match = LENGTH.exec(text.trim());
  if (!match) return undefined;
  return `${Number(match[1])}${(match[2] ?? 'px').toLowerCase()}`;
}

/** Inches of a length normalizeCssLength accepted. */
export function cssLengthInches(length: string): number {
  const match = LENGTH.exec(length.trim());
  if (!match) return Number.NaN;
  return Number(match[1]) * INCHES_PER_UNIT[(match[2] ?? 'px').toLowerCase()]!;
}
