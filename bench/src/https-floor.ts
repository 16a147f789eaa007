import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
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
 */
export async function startHttpsFloor(opts: { certFile: string; keyFile: string; bodyBytes: number }): Promise<HttpsFloor> {
  const body = Buffer.alloc(opts.bodyBytes, 0x61);
  const server = createServer(httpsServerOptions({ cert: readFileSync(opts.certFile), key: readFileSync(opts.keyFile) }), (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length });
      res.end(body);
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
