import { z } from 'zod';
import { stringParam } from './coerce.js';
import { isIanaTimeZone } from './time-zone.js';

// The value schemas several render parameters share (addresses, header and cookie pairs, a time zone, a
// selector, a file name): syntax only, each with the message a 400 names.

export const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the browser manages itself; setting them would break the request. */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

// Syntax only: which schemes and addresses may be loaded is the SSRF guard's decision
// (@app/net-guard), answered with target_not_allowed.
export const absoluteUrl = z
  .string({ error: 'must be a string' })
  .max(8_192, { error: 'must be at most 8192 characters' })
  .refine((v) => URL.canParse(v), { error: 'must be an absolute URL' });

// Scheme and address (https, public) are the edge's SSRF guard's decision, answered with target_not_allowed.
export const webhookUrl = absoluteUrl.refine(
  (v) => {
    if (!URL.canParse(v)) return true; // reported by absoluteUrl
    const u = new URL(v);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.username === '' && u.password === '';
  },
  { error: 'must be an https URL without credentials' },
);

/** `http://user:password@host:port` or `https://…`; whether the host may be used is the renderer's SSRF check. */
export const proxyUrl = stringParam({ max: 2_048 }).refine(
  (v) => {
    if (!URL.canParse(v)) return false;
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && (u.pathname === '/' || u.pathname === '') && !u.search && !u.hash;
  },
  { error: 'must look like http://user:password@host:port or https://user:password@host:port' },
);

export const headerPair = z.string().refine(
  (pair) => {
    const colon = pair.indexOf(':');
    if (colon <= 0) return false;
    const name = pair.slice(0, colon).trim();
    const value = pair.slice(colon + 1).trim();
    return TOKEN.test(name) && !FORBIDDEN_HEADERS.has(name.toLowerCase()) && PRINTABLE_ASCII.test(value) && pair.length <= 8_192;
  },
  { error: 'must be name:value pairs with a valid header name (not Host, Content-Length or a hop-by-hop header) and a printable value' },
);

export const cookiePair = z.string().refine(
  (pair) => {
    const eq = pair.indexOf('=');
    if (eq <= 0) return false;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    return TOKEN.test(name) && PRINTABLE_ASCII.test(value) && !value.includes(';') && pair.length <= 4_096;
  },
  { error: 'must be name=value pairs with a valid cookie name and a printable value' },
);

export const timezone = stringParam({ max: 100 }).refine(isIanaTimeZone, { error: 'must be an IANA time zone name such as Europe/Paris' });

export const selector = stringParam({ max: 1_000 });

/**
 * A file name for Content-Disposition: any Unicode text (sent as RFC 6266 `filename*` with an ASCII
 * fallback), but no quotes, path separators, control characters (C0, DEL, C1), line or paragraph
 * separators, bidirectional overrides (which can disguise the extension) or unpaired surrogates.
 */
const FORBIDDEN_IN_FILE_NAME = /["'\\/\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069\p{Cs}]/u;
export const attachmentName = stringParam({ max: 200 }).refine((v) => !FORBIDDEN_IN_FILE_NAME.test(v), {
  error: 'must not contain quotes, slashes, backslashes, control characters or line breaks',
});
