import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The header lines exactly as received: name, value, name, value... */
  rawHeaders: string[];
  at: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface FixtureServer {
  /** http://127.0.0.1:PORT (https:// with a certificate) */
  origin: string;
  port: number;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  hits(path: string): number;
  /** Adds or replaces a route. */
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

const page = (title: string, body: string, style = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><style>html,body{margin:0}${style}</style></head><body>${body}</body></html>`;

/** Built-in pages every test can use. */
const DEFAULT_ROUTES: Record<string, Handler> = {
  '/': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page('Fixture home', '<h1>Fixture page</h1><p>Served by the test fixture server.</p><ul><li>one</li><li>two</li></ul>'));
  },
  '/red': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page('Red', '', 'html,body{background:#ff0000;width:100%;height:100%}'));
  },
  '/slow': (_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page('Slow', '<p>slow</p>'));
    }, 3_000);
  },
  '/not-found': (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page('Missing', '<p>404</p>'));
  },
};

/** A local HTTP (or, given a certificate, HTTPS) server serving test pages on 127.0.0.1 and recording every request it gets. */
export async function startFixtureServer(
  routes: Record<string, Handler> = {},
  /** listenHost: the address to listen on (0.0.0.0 for containers reaching the host); origin stays 127.0.0.1. */
  opts: { tls?: { cert: string; key: string }; listenHost?: string } = {},
): Promise<FixtureServer> {
  const table = new Map<string, Handler>(Object.entries({ ...DEFAULT_ROUTES, ...routes }));
  const requests: RecordedRequest[] = [];
  const listener: RequestListener = (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, rawHeaders: req.rawHeaders, at: Date.now() });
    const handler = table.get(path);
    if (handler) return handler(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  };
  const server: Server = opts.tls ? createHttpsServer(opts.tls, listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, opts.listenHost ?? '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests,
    hits: (path) => requests.filter((r) => r.path === path).length,
    route: (path, handler) => void table.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
