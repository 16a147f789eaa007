import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HealthCheck = () => Promise<Record<string, unknown>> | Record<string, unknown>;

export interface HealthServer {
  port: number;
  /** Marks the service as draining: /healthz answers 503 from now on. */
  setDraining(): void;
  close(): Promise<void>;
}

/**
 * A tiny HTTP server answering GET /healthz with 200 and the check's details, or 503 when the check
 * throws or the service is draining. Internal services expose nothing else over HTTP.
 */
export async function startHealthServer(opts: { port: number; host?: string; check: HealthCheck }): Promise<HealthServer> {
  let draining = false;
  const server: Server = createServer((req, res) => {
    if (req.url !== '/healthz' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":"not_found"}');
      return;
    }
    void (async () => {
      try {
        if (draining) throw new Error('draining');
        const details = await opts.check();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', ...details }));
      } catch (err) {
        res
          .writeHead(503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: draining ? 'draining' : 'unhealthy', reason: (err as Error).message }));
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    setDraining: () => {
      draining = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
