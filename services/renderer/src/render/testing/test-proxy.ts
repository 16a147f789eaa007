import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A plain-HTTP forward proxy on 127.0.0.1 for tests: records every absolute URL it is asked for,
 * forwards requests to 127.0.0.1 (the fixture server), and answers any other host itself (so no
 * test traffic leaves the machine). With credentials it answers 407 until they are given.
 */
export interface TestProxy {
  readonly url: string;
  readonly port: number;
  /** Absolute URLs asked for (after authentication, when required). */
  readonly seen: string[];
  /** The same requests with their headers. */
  readonly requests: Array<{ url: string; headers: Record<string, string | string[] | undefined> }>;
  /** Requests refused with 407. */
  readonly challenged: number;
  close(): Promise<void>;
}

export async function startTestProxy(opts: { username?: string; password?: string } = {}): Promise<TestProxy> {
  const seen: string[] = [];
  const requests: TestProxy['requests'] = [];
  let challenged = 0;
  const expected = opts.username ? `Basic ${Buffer.from(`${opts.username}:${opts.password ?? ''}`).toString('base64')}` : undefined;
  const server: Server = createServer((req, res) => {
    if (expected && req.headers['proxy-authorization'] !== expected) {
      challenged++;
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-length': '0' });
      return res.end();
    }
    const target = URL.canParse(req.url ?? '') ? new URL(req.url!) : undefined;
    if (!target) return res.writeHead(400).end();
    seen.push(target.href);
    requests.push({ url: target.href, headers: req.headers });
    if (target.hostname !== '127.0.0.1') {
      const body = '<!doctype html><title>proxied</title><p>answered by the test proxy</p>';
      res.writeHead(200, { 'content-type': target.pathname.endsWith('.js') ? 'text/javascript' : 'text/html' });
      return res.end(target.pathname.endsWith('.js') ? '/* proxied */' : body);
    }
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, 'x-via-test-proxy': '1' };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = request({ host: '127.0.0.1', port: target.port, path: target.pathname + target.search, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  // HTTPS tunnels (e.g. HSTS-upgraded requests) are recorded by authority and refused.
  server.on('connect', (req, socket) => {
    seen.push(`https://${req.url ?? ''}/`);
    requests.push({ url: `https://${req.url ?? ''}/`, headers: req.headers });
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    requests,
    get challenged() {
      return challenged;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
