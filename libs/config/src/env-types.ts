import { z } from 'zod';

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off', '']);

/** A boolean variable: 1/true/yes/on or 0/false/no/off. */
export const envBool = (defaultValue: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return defaultValue;
      const s = v.trim().toLowerCase();
      if (TRUE.has(s)) return true;
      if (FALSE.has(s)) return false;
      ctx.addIssue({ code: 'custom', message: `expected a boolean (1/0, true/false), got "${v}"` });
      return z.NEVER;
    });

/** An integer variable within [min, max]. */
export const envInt = (defaultValue: number, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return defaultValue;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `expected an integer between ${min} and ${max}, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });

/** A TCP port (0 picks a free one). */
export const envPort = (defaultValue: number) => envInt(defaultValue, 0, 65535);

/** A non-empty string with a default. */
export const envString = (defaultValue: string) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' ? defaultValue : v));

/** An optional non-empty string. */
export const envOptional = () =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : v));

/** A host:port address. */
export const envAddress = (defaultValue: string) =>
  envString(defaultValue).refine((v) => /^[^\s:]+:\d{1,5}$/.test(v) || /^\[[0-9a-f:]+\]:\d{1,5}$/i.test(v), {
    message: 'expected host:port',
  });

/** host:port addresses of a replicated service, comma-separated (or one host name resolving to all of them). */
export const envAddresses = (defaultValue: string) =>
  envString(defaultValue).refine(
    (v) => v.split(',').every((a) => /^[^\s:,]+:\d{1,5}$/.test(a.trim()) || /^\[[0-9a-f:]+\]:\d{1,5}$/i.test(a.trim())),
    { message: 'expected host:port[,host:port...]' },
  );
