import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpsServerOptions } from '@app/runtime';

export interface HttpsFloor {
  url: string;
  close(): Promise<void>;
}

/**
 * The floor of scenarios (3) and (4): a bare Node HTTPS server with the service's certificate and TLS
 * settings (in the bench's own process, idle while wrk runs) that reads each request's body and
 * answers it with `bodyBytes` bytes. No framework, no admission, no lookup: what one HTTPS request
 * costs on this machine.
 *
 * With `coalesceWrites`, it writes the responses of one event-loop turn together at its end, as the edge
 * does: what the same HTTPS request costs a server that batches its writes likewise.
 */
export async function startHttpsFloor(opts: { certFile: string; keyFile: string; bodyBytes: number; coalesceWrites?: boolean }): Promise<HttpsFloor> {
  const body = Buffer.alloc(opts.bodyBytes, 0x61);
  const answer = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length });
    res.end(body);
  };
  let pending: ServerResponse[] = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    for (const res of batch) answer(res);
  };
  const server = createServer(httpsServerOptions({ cert: readFileSync(opts.certFile), key: readFileSync(opts.keyFile) }), (req, res) => {
    req.resume();
    req.on('end', () => {
      if (!opts.coalesceWrites) return answer(res);
      if (pending.push(res) === 1) setImmediate(flush);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
