import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/** The API's security headers: HSTS for a year with subdomains; no CSP or CORP (it serves no pages to embed). */
export const SECURITY_HEADER_OPTIONS: Readonly<HelmetOptions> = {
  hsts: { maxAge: 31_536_000, includeSubDomains: true },
  contentSecurityPolicy: false,
  crossOriginResourcePolicy: false,
};

/**
 * The headers helmet sets for `options`, computed once: they are the same on every response, so each
 * request copies a ready object instead of running helmet's middleware chain.
 */
export function securityHeaders(options: Readonly<HelmetOptions> = SECURITY_HEADER_OPTIONS): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return Object.freeze(headers);
}
