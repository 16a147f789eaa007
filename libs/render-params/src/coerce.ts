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

export const numberParam = (opts: { min?: number; max?: number; int?: boolean } = {}) => {
  let n = z.number({ error: 'must be a number' });
  if (opts.int) n = n.int({ error: 'must be a whole number' });
  if (opts.min !== undefined) n = n.min(opts.min, { error: `must be at least ${opts.min}` });
  if (opts.max !== undefined) n = n.max(opts.max, { error: `must be at most ${opts.max}` });
  return z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v), n);
};

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

/**
 * `name:value` pairs separated by semicolons. A piece without a colon continues the value before it,
 * so `Accept: text/html; q=0.9` stays one header.
 */
export function splitHeaderPairs(text: string): string[] {
  const pairs: string[] = [];
  for (const piece of text.split(';')) {
    if (pairs.length > 0 && !piece.includes(':')) pairs[pairs.length - 1] += `;${piece}`;
    else pairs.push(piece);
  }
  return pairs;
}
