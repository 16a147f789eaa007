import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Test pages on 127.0.0.1 (port 0). Used by the renderer's integration tests and benchmarks only;
 * no test reaches any other network.
 */
export interface FixtureServer {
  readonly origin: string;
  url(path: string): string;
  /** Paths requested so far, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

const SAMPLE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Fixture page</title>
<link rel="stylesheet" href="/style.css"><link rel="icon" href="/icon.svg"></head>
<body><h1>Fixture page</h1><img src="/image.svg" width="200" height="100" alt="">
<ul>${Array.from({ length: 10 }, (_, i) => `<li>Item ${i + 1}</li>`).join('')}</ul>
<table>${Array.from({ length: 10 }, (_, r) => `<tr>${Array.from({ length: 5 }, (_, c) => `<td>${r}:${c}</td>`).join('')}</tr>`).join('')}</table>
</body></html>`;

const STYLE = 'body{font-family:sans-serif;background:#f4f4f8;margin:24px}h1{color:#335}td{border:1px solid #999;padding:4px}';
const IMAGE = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#36c"/></svg>';

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

const html = (res: ServerResponse, body: string, status = 200): void => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'x-fixture': 'yes' });
  res.end(body);
};

const ROUTES: Record<string, Handler> = {
  '/': (_req, res) => html(res, SAMPLE_PAGE),
  '/style.css': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/css' });
    res.end(STYLE);
  },
  '/image.svg': (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/svg+xml' });
    res.end(IMAGE);
  },
  '/icon.svg': (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/svg+xml' });
    res.end(IMAGE);
  },
  '/blank': (_req, res) => html(res, '<!doctype html><title>blank</title><p>blank</p>'),
  '/red': (_req, res) => html(res, '<!doctype html><style>html,body{margin:0;background:#ff0000}</style>'),
  '/tall': (_req, res) => html(res, '<!doctype html><body style="margin:0"><div style="height:3000px;background:#0a0"></div>'),
  '/not-found': (_req, res) => html(res, '<!doctype html><title>Missing</title><h1>404 here</h1>', 404),
  '/hang': (_req, res) => html(res, '<!doctype html><title>hang</title><script>while(true){}</script>'),
  '/headers': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.headers));
  },
  '/slow': (_req, res, url) => {
    setTimeout(() => html(res, '<!doctype html><title>slow</title>'), Number(url.searchParams.get('ms') ?? 1000));
  },
};

export async function startFixtureServer(): Promise<FixtureServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(url.pathname);
    const route = ROUTES[url.pathname];
    if (route) route(req, res, url);
    else html(res, '<!doctype html><title>404</title>', 404);
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
