import { z } from 'zod';

/**
 * Parameters arrive as JSON values (POST) or strings (GET query, task queries). These schemas accept
 * both forms and produce the typed value.
 */
/** Whether a raw parameter value (JSON or query string) means true, as boolParam reads it. */
export const isTrueParam = (v: unknown): boolean => v === true || v === 'true' || v === '1';

export const boolParam = () =>
  z.preprocess((v) => {
    if (isTrueParam(v)) return true;
    if (v === 'false' || v === '0') return false;
    return v;
  }, z.boolean({ error: 'must be true or false' }));

const toNumber = (v: unknown) => (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v);

const numberSchema = (opts: { min?: number; max?: number; int?: boolean }) => {
  let n = z.number({ error: 'must be a number' });
  if (opts.int) n = n.int({ error: 'must be a whole number' });
  if (opts.min !== undefined) n = n.min(opts.min, { error: `must be at least ${opts.min}` });
  if (opts.max !== undefined) n = n.max(opts.max, { error: `must be at most ${opts.max}` });
  return n;
};

export const numberParam = (opts: { min?: number; max?: number; int?: boolean } = {}) => z.preprocess(toNumber, numberSchema(opts));

/**
 * A number for which `0` means "not set" (the default applies), as ScreenshotMAX's clients send it:
 * 0 parses to undefined, anything else must be in range.
 */
export const numberOrUnsetParam = (opts: { min: number; max: number; int?: boolean }) =>
  z
    .preprocess(
      toNumber,
      z.union([z.literal(0), numberSchema(opts)], {
        error: `must be 0 (not set) or a${opts.int ? ' whole' : ''} number from ${opts.min} to ${opts.max}`,
      }),
    )
    .transform((v) => (v === 0 ? undefined : v));

export const stringParam = (opts: { max?: number; min?: number } = {}) =>
  z
    .string({ error: 'must be a string' })
    .min(opts.min ?? 1, { error: 'must not be empty' })
    .max(opts.max ?? 100_000, { error: `must be at most ${opts.max ?? 100_000} characters` });

export const enumParam = <T extends string>(values: readonly [T, ...T[]]) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

/** How one string of a list parameter is cut into items. */
export type Splitter = string | RegExp | ((text: string) => string[]);

const splitWith = (splitter: Splitter, text: string): string[] =>
  typeof splitter === 'function' ? splitter(text) : text.split(splitter);

/**
 * A list given as a JSON array, as repeated query parameters, or as one string cut by `splitter`
 * (each array entry is cut too, so `a,b` repeated still gives every item).
 */
export const listParam = <T extends z.ZodType<string>>(item: T, splitter: Splitter, opts: { maxItems?: number } = {}) =>
  z.preprocess(
    (v) => {
      const parts = typeof v === 'string' ? [v] : v;
      if (!Array.isArray(parts)) return v;
      return parts
        .flatMap((p) => (typeof p === 'string' ? splitWith(splitter, p) : [p]))
        .map((p) => (typeof p === 'string' ? p.trim() : p))
        .filter((p) => p !== '');
    },
    z
      .array(item, { error: 'must be a list' })
      .min(1, { error: 'must not be empty' })
      .max(opts.maxItems ?? 100, { error: `must have at most ${opts.maxItems ?? 100} items` }),
  );

/**
 * Cuts `text` at every `separator` that is not inside brackets, parentheses or quotes, so a CSS
 * selector such as `:is(a, b)` or `[title="x,y"]` stays whole.
 */
export function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** The characters of an HTTP token (a header or cookie name). */
const TOKEN_CHARS = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** A comma followed by `Name:` (a header starts there; `https://` after a comma is a URL going on). */
const COMMA_BEFORE_HEADER = new RegExp(`,(?=\\s*${TOKEN_CHARS}:(?!//))`);
/** A comma followed by `name=` (a cookie starts there). */
const COMMA_BEFORE_COOKIE = new RegExp(`,(?=\\s*${TOKEN_CHARS}=)`);

/**
 * `name:value` pairs separated by semicolons, or by commas as ScreenshotMAX's client joins a list
 * (`X-A: 1,X-B: 2`). A comma starts a new header only where `Name:` follows it, so
 * `Accept: text/html, application/xml` stays one header; a piece after a semicolon without a colon
 * continues the value before it, so `Accept: text/html; q=0.9` stays one header too.
 */
export function splitHeaderPairs(text: string): string[] {
  return text.split(COMMA_BEFORE_HEADER).flatMap((joined) => {
    const pairs: string[] = [];
    for (const piece of joined.split(';')) {
      if (pairs.length > 0 && !piece.includes(':')) pairs[pairs.length - 1] += `;${piece}`;
      else pairs.push(piece);
    }
    return pairs;
  });
}

/**
 * `name=value` pairs separated by semicolons, or by commas as ScreenshotMAX's client joins a list
 * (`a=1,b=2`): a comma starts a new cookie only where `name=` follows it (`a=1,2` stays one cookie).
 */
export function splitCookiePairs(text: string): string[] {
  return text.split(COMMA_BEFORE_COOKIE).flatMap((joined) => joined.split(';'));
}
