import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  /** 1-based, in arrival order. */
  n: number;
  at: number;
  path: string;
  headers: IncomingMessage['headers'];
  /** The raw body exactly as received. */
  body: string;
  /** Verified with the official Standard Webhooks library (raw secret). */
  standardOk: boolean;
  /** X-Service-Signature checked as a plain hex HMAC-SHA256 of the raw body, constant-time. */
  plainOk: boolean;
  /** What the receiver answered. */
  status: number;
}

export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  /** Answer after this long (a slow receiver). */
  delayMs?: number;
  /** Never answer (the connection stays open until the client gives up). */
  hang?: boolean;
  /** Stream this many bytes of body (a huge receiver). */
  bodyBytes?: number;
}

export interface WebhookReceiver {
  /** Base URL: http://127.0.0.1:PORT or https://localhost:PORT */
  url: string;
  received: ReceivedWebhook[];
  /** Deliveries whose answer was 2xx. */
  accepted(): ReceivedWebhook[];
  /** Requests being handled right now, and the most at once so far. */
  inFlight(): number;
  maxInFlight(): number;
  /** Bytes of body written to the client so far (huge answers). */
  bytesWritten(): number;
  close(): Promise<void>;
}

/** Verifies one delivery both ways; a tampered body, id or timestamp fails both. */
export function verifyWebhook(secret: string, body: string, headers: Record<string, string | string[] | undefined>) {
  const flat = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]));
  let standardOk = false;
  try {
    new Webhook(secret, { format: 'raw' }).verify(body, flat);
    standardOk = true;
  } catch {
    standardOk = false;
  }
  const given = Buffer.from(flat['x-service-signature'] ?? '');
  const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('hex'));
  const plainOk = given.length === expected.length && timingSafeEqual(given, expected);
  return { standardOk, plainOk };
}

/**
 * A webhook receiver for tests: records every delivery, verifies it with the account's secret, and
 * answers as `answer(n)` says (n = 1 for the first request). Plain HTTP on 127.0.0.1, or HTTPS on
 * localhost when given a certificate.
 */
export async function startWebhookReceiver(opts: {
  secret: () => string;
  answer?: (n: number, req: IncomingMessage) => ReceiverAnswer;
  tls?: { cert: string; key: string };
  /** The address to listen on (0.0.0.0 for containers reaching the host); `url` stays on 127.0.0.1. */
  listenHost?: string;
}): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let bytesWritten = 0;
  let count = 0;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const n = ++count;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = opts.answer?.(n, req) ?? { status: 200 };
      received.push({ n, at: Date.now(), path: req.url ?? '/', headers: req.headers, body, ...verifyWebhook(opts.secret(), body, req.headers), status: answer.status });
      const done = () => {
        inFlight--;
      };
      res.once('close', done);
      if (answer.hang) return;
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        if (!answer.bodyBytes) return void res.end('ok');
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = () => {
          while (bytesWritten < answer.bodyBytes! && !res.destroyed) {
            bytesWritten += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      }, answer.delayMs ?? 0);
    });
  };
  const server = opts.tls ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, opts.listenHost ?? '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: opts.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    received,
    accepted: () => received.filter((r) => r.status >= 200 && r.status < 300),
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    bytesWritten: () => bytesWritten,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
