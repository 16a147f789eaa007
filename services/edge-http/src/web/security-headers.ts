import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/** The API's security headers: HSTS for a year with subdomains; no CSP or CORP (it serves no pages to embed). */
const SECURITY_HEADER_OPTIONS: Readonly<HelmetOptions> = {
  hsts: { maxAge: 31_536_000, includeSubDomains: true },
  contentSecurityPolicy: false,
  crossOriginResourcePolicy: false,
};

/**
 * The headers that matter on every response a browser may load, an API answer (JSON, an image, a PDF)
 * included: HSTS, no type sniffing, no framing by other origins, no referrer (OWASP's set for REST
 * APIs). The others helmet sets (COOP, Origin-Agent-Cluster, X-DNS-Prefetch-Control,
 * X-Download-Options, X-Permitted-Cross-Domain-Policies, X-XSS-Protection) act on HTML pages only.
 */
const ON_EVERY_RESPONSE: ReadonlySet<string> = new Set(['strict-transport-security', 'x-content-type-options', 'x-frame-options', 'referrer-policy']);

export interface SecurityHeaders {
  /** On every response, errors included. */
  readonly everyResponse: Readonly<Record<string, string>>;
  /** Added to the HTML pages the service serves itself (the dashboard, the API reference). */
  readonly pagesOnly: Readonly<Record<string, string>>;
}

/**
 * The headers helmet sets for the service's options, computed once at start-up and split by where they
 * act: they are the same on every response, so each request copies a ready object instead of running
 * helmet's middleware chain.
 */
function helmetHeaders(): SecurityHeaders {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet(SECURITY_HEADER_OPTIONS)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  const entries = Object.entries(headers);
  return {
    everyResponse: Object.freeze(Object.fromEntries(entries.filter(([name]) => ON_EVERY_RESPONSE.has(name)))),
    pagesOnly: Object.freeze(Object.fromEntries(entries.filter(([name]) => !ON_EVERY_RESPONSE.has(name)))),
  };
}

export const SECURITY_HEADERS: SecurityHeaders = helmetHeaders();
