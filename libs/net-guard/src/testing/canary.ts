import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CANARY_BODY = 'canary-reached';

export interface Canary {
  port: number;
  /** Requests that reached the canary. */
  hits: number;
  /** Path of every request that reached the canary, in order. */
  paths: string[];
  /** Headers and body of the last request. */
  last: { method: string; url: string; headers: IncomingHttpHeaders; rawHeaderNames: string[]; body: string } | undefined;
  /** Resolves when a request to /hang is torn down by its client. */
  hangClosed: Promise<void>;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server that counts every request reaching it: the thing an SSRF must never touch.
 * `/hang` never answers; `/reset` sends headers then kills the connection; anything else answers CANARY_BODY.
 */
export async function startCanary(): Promise<Canary> {
  let onHangClosed = () => {};
  const canary: Canary = {
    port: 0,
    hits: 0,
    paths: [],
    last: undefined,
    hangClosed: new Promise<void>((resolve) => (onHangClosed = resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = createServer((req, res) => {
    canary.hits += 1;
    canary.paths.push(req.url ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => {});
    res.on('error', () => {});
    if (req.url === '/hang') {
      res.on('close', onHangClosed);
      return;
    }
    req.on('end', () => {
      canary.last = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaderNames: req.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()),
        body: Buffer.concat(chunks).toString(),
      };
      if (req.url === '/reset') {
        res.writeHead(200, { 'content-length': '1000' });
        res.write('partial');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain', 'x-canary': '1', 'set-cookie': ['a=1', 'b=2'] });
      res.end(CANARY_BODY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  canary.port = (server.address() as AddressInfo).port;
  return canary;
}
