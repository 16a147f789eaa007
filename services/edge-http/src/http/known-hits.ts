import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPERATIONS, type Operation } from '@app/render-params';
import { context, nameHttpRoute } from '@app/telemetry';
import type { Admitted, Admitter } from '../application/ports.js';
import type { RenderCached } from '../results/index.js';
import { SECURITY_HEADERS, admitRequestOf, handOver, rateLimitHeaders, type RequestParts } from '../web/index.js';
import { requestIdOf } from './errors.js';
import { MAX_REMEMBERED_INPUT, isSyncCached, type RememberedValidation } from './render-input.js';
import { resultHeaders } from './result-policy.js';

export type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface KnownHitsDeps {
  /** The hit this edge holds in memory for an account's render, if any. */
  known: RenderCached['known'];
  admitter: Admitter;
  validate: RememberedValidation;
  /** False while every answer must go through Fastify (the bus is down, the server is closing). */
  open: () => boolean;
  /** The HTTP server's duration metric, as Fastify's hook records it. */
  recordHttp: (method: string, route: string, status: number, seconds: number) => void;
}

const ROUTES: ReadonlyMap<string, Operation> = new Map(OPERATIONS.map((operation) => [`/v1/${operation}`, operation]));
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * A POST of a render whose body is small JSON, unsigned, whose key (in the header) this edge holds a rate
 * lease of: it may be a hit answered here. Any other request (a quiet key's, a refused key's) goes to
 * Fastify before its body is read, at no cost.
 */
function candidate(req: IncomingMessage, admitter: Admitter): Operation | undefined {
  if (req.method !== 'POST') return undefined;
  const operation = ROUTES.get(req.url ?? '');
  if (!operation) return undefined;
  const { headers } = req;
  const length = Number(headers['content-length']);
  if (!(length > 0 && length <= MAX_REMEMBERED_INPUT)) return undefined;
  const key = headers['x-access-key'];
  if (typeof key !== 'string' || headers['x-signature'] !== undefined || !admitter.leasesKey(key)) return undefined;
  return JSON_TYPE.test(headers['content-type'] ?? '') ? operation : undefined;
}

const parsedObject = (body: Buffer): Record<string, unknown> | undefined => {
  try {
    const input: unknown = JSON.parse(body.toString('utf8'));
    return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Synchronous cache hits this edge holds in memory, answered beneath Fastify: the busiest answer the API
 * gives costs what an HTTPS request costs and little more (no routing, hooks or reply objects).
 *
 * Only a request that is one for sure is answered here: a POST of `/v1/{operation}` with a small JSON body
 * asking for the cache, valid, its key in X-Access-Key and unsigned, admitted here and now by the key's rate
 * lease (`leasesKey`, then `tryNow`), whose hit this edge holds. It gets what Fastify would answer: the security headers, its
 * request id, the rate limit, X-Service-Cache and the result's headers; its route names its trace span and
 * its metric. Every other request goes to `next` (Fastify) untouched; one whose body was read already is
 * handed over with it (Fastify's parser is given it again) and with the admission made for it, so a rate
 * lease's unit is spent once.
 */
export function answerKnownHits(deps: KnownHitsDeps, next: Listener): Listener {
  /** To Fastify, with the body read (its parser is given it again) and the admission made, if any. */
  const toFastify = (req: IncomingMessage, res: ServerResponse, body: Buffer, admitted?: Admitted) => {
    handOver(req, admitted ? { body, admitted } : { body });
    next(req, res);
  };

  const answer = (req: IncomingMessage, res: ServerResponse, operation: Operation, body: Buffer, startedMs: number) => {
    const input = parsedObject(body);
    if (!input) return toFastify(req, res, body);
    let params;
    try {
      params = deps.validate(operation, body.toString('latin1'), input).params;
    } catch {
      return toFastify(req, res, body);
    }
    if (!isSyncCached(params) || input.access_key !== undefined) return toFastify(req, res, body);
    const request: RequestParts = { method: 'POST', url: req.url!, headers: req.headers, body: input, rawBody: body };
    const admitted = deps.admitter.tryNow(admitRequestOf(request, 'render', undefined));
    if (!admitted) return toFastify(req, res, body);
    const hit = deps.known({ accountId: admitted.account.accountId, operation, params });
    if (!hit) return toFastify(req, res, body, admitted);
    try {
      res.writeHead(200, {
        ...SECURITY_HEADERS.everyResponse,
        'x-service-request-id': requestIdOf(),
        ...rateLimitHeaders(admitted.rateLimit),
        'x-service-cache': hit.cache,
        ...resultHeaders(hit, params.attachment_name),
        'content-length': hit.body.byteLength,
      });
    } catch {
      // A header Node refuses (nothing was written; renders encode theirs, so this guards a defect): thrown in
      // this listener it would end the process; Fastify's path takes the request instead.
      return toFastify(req, res, body, admitted);
    }
    res.end(hit.body);
    const route = req.url!;
    nameHttpRoute('POST', route);
    deps.recordHttp('POST', route, 200, (performance.now() - startedMs) / 1000);
  };

  return (req, res) => {
    const operation = candidate(req, deps.admitter);
    if (!operation || !deps.open()) return next(req, res);
    const startedMs = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The body's end is emitted in the connection's context: the answer (or Fastify's) runs in the request's trace.
    req.once(
      'end',
      context.bind(context.active(), () => {
        answer(req, res, operation, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), startedMs);
      }),
    );
  };
}
