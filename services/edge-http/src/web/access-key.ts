import type { IncomingHttpHeaders } from 'node:http';

/**
 * What the request helpers read: a Fastify request, or the parts of one the edge read beneath Fastify
 * (a cache hit answered from memory, http/known-hits.ts).
 */
export interface RequestParts {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed query (GET, HEAD, DELETE). */
  query?: unknown;
  /** The parsed JSON body. */
  body?: unknown;
  /** The body's bytes as sent. */
  rawBody?: Buffer | undefined;
}

const asString = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The access key, from the X-Access-Key header (any method), the access_key query parameter (GET and
 * DELETE) or the access_key body field (POST and PATCH).
 */
export function accessKeyOf(request: RequestParts): string {
  const header = asString(request.headers['x-access-key']);
  if (header) return header;
  if (request.method === 'GET' || request.method === 'DELETE' || request.method === 'HEAD') {
    return asString((request.query as Record<string, unknown> | undefined)?.access_key) ?? '';
  }
  const body = request.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    return asString((body as Record<string, unknown>).access_key) ?? '';
  }
  return '';
}

/** The raw query string exactly as sent (for signature checks). */
export function rawQueryOf(request: RequestParts): string {
  const i = request.url.indexOf('?');
  return i < 0 ? '' : request.url.slice(i + 1);
}

/** The request's parameters: the query for GET (and HEAD, answered like GET), the JSON body otherwise. */
export function inputOf(request: RequestParts): Record<string, unknown> | undefined {
  const source = request.method === 'GET' || request.method === 'HEAD' ? request.query : request.body;
  return source && typeof source === 'object' && !Array.isArray(source) ? (source as Record<string, unknown>) : undefined;
}
