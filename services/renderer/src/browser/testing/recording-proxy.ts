import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A plain HTTP forward proxy on 127.0.0.1 that records the absolute URLs it is asked for (http only). */
export interface RecordingProxy {
  readonly url: string;
  readonly seen: string[];
  close(): Promise<void>;
}

export async function startRecordingProxy(): Promise<RecordingProxy> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const target = new URL(req.url ?? '');
    const upstream = request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
