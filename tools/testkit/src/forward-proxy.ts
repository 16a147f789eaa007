import { createServer as createHttpServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export interface ProxiedRequest {
  method: string;
  /** The absolute URL, or the authority of a CONNECT. */
  target: string;
  /** The header lines exactly as the proxy received them: name, value, name, value... */
  rawHeaders: string[];
}

export interface ForwardProxy {
  /** `http(s)://user:password@127.0.0.1:PORT` (percent-encoded credentials), as a caller gives it. */
  url: string;
  port: number;
  /** Every request that carried the right Proxy-Authorization, in order. */
  requests: ProxiedRequest[];
  /** Requests answered 407 (no or wrong credentials). */
  challenged: number;
  close(): Promise<void>;
}

/**
 * A caller's forward proxy for tests, served over http or (given a certificate) https: it wants Basic
 * credentials, records each request's raw header lines, and forwards only to 127.0.0.1 (plain requests
 * relayed with their headers untouched, CONNECT tunnelled), so no test traffic leaves the machine.
 */
export async function startForwardProxy(opts: { username: string; password: string; tls?: { cert: string; key: string } }): Promise<ForwardProxy> {
  const expected = `Basic ${Buffer.from(`${opts.username}:${opts.password}`).toString('base64')}`;
  const requests: ProxiedRequest[] = [];
  let challenged = 0;
  const admitted = (req: IncomingMessage): boolean => {
    if (req.headers['proxy-authorization'] !== expected) {
      challenged++;
      return false;
    }
    requests.push({ method: req.method ?? '', target: req.url ?? '', rawHeaders: req.rawHeaders });
    return true;
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!admitted(req)) return res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-length': '0' }).end();
    const target = URL.canParse(req.url ?? '') ? new URL(req.url!) : undefined;
    if (!target || target.hostname !== '127.0.0.1') return res.writeHead(403, { 'content-length': '0' }).end();
    const headers: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (!/^proxy-/i.test(req.rawHeaders[i]!)) headers.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    }
    const upstream = request({ host: '127.0.0.1', port: target.port, path: target.pathname + target.search, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  };
  const onConnect = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (!admitted(req)) return socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
    const [host, port] = (req.url ?? '').split(':');
    if (host !== '127.0.0.1') return socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    const upstream = connect(Number(port), '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
  };

  const server: Server = opts.tls ? createHttpsServer(opts.tls) : createHttpServer();
  server.on('request', onRequest);
  server.on('connect', onConnect);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const credentials = `${encodeURIComponent(opts.username)}:${encodeURIComponent(opts.password)}`;
  const close = async () => {
    const closed = once(server.close(), 'close');
    server.closeAllConnections();
    await closed;
  };
  return Object.defineProperty({ url: `${opts.tls ? 'https' : 'http'}://${credentials}@127.0.0.1:${port}`, port, requests, challenged, close }, 'challenged', {
    get: () => challenged,
  });
}
