import { z } from 'zod';

/**
 * Parameters arrive as JSON values (POST) or strings (GET query, task queries). These schemas accept
 * both forms and produce the typed value.
 */
export const boolParam = () =>
  z.preprocess((v) => {
    if (v === 'true' || v === '1') return true;
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

/**
 * A list given as a JSON array, as repeated query parameters, or as one string separated by `sep`.
 */
export const listParam = <T extends z.ZodType<string>>(item: T, sep: string | RegExp) =>
  z.preprocess((v) => {
    const parts = typeof v === 'string' ? [v] : v;
    if (!Array.isArray(parts)) return v;
    return parts
      .flatMap((p) => (typeof p === 'string' ? p.split(sep) : [p]))
      .map((p) => (typeof p === 'string' ? p.trim() : p))
      .filter((p) => p !== '');
  }, z.array(item, { error: 'must be a list' }).min(1, { error: 'must not be empty' }));
