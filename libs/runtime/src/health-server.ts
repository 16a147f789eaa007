import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveMetrics } from '@app/telemetry';
import { evaluateReadiness, type ReadinessCheck } from './readiness.js';

export type HealthDetails = () => Promise<Record<string, unknown>> | Record<string, unknown>;

export interface HealthServer {
  port: number;
  /** Marks the service as draining: /readyz answers 503 from now on (/healthz stays 200 while it lives). */
  setDraining(): void;
  close(): Promise<void>;
}

export interface HealthServerOptions {
  port: number;
  host?: string;
  /** The dependencies the service needs to do its work (bus, peers, browsers), by name. */
  ready?: Record<string, ReadinessCheck>;
  /** Cheap facts about the process shown by /healthz and /readyz (never a call to a dependency). */
  details?: HealthDetails;
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));

/**
 * The operations port of a service: GET /healthz (alive: 200 while the process answers), GET /readyz
 * (ready: 200 only when every dependency check passes and the service is not draining, else 503 naming
 * what is wrong) and GET /metrics (Prometheus text). Internal services expose nothing else over HTTP.
 */
export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  let draining = false;
  const checks = opts.ready ?? {};
  const details = async () => (opts.details ? await opts.details() : {});

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { status: 'method_not_allowed' });
    if (path === '/metrics') return serveMetrics(req, res);
    if (path === '/healthz') return json(res, 200, { status: 'ok', pid: process.pid, ...(await details()) });
    if (path === '/readyz') {
      if (draining) return json(res, 503, { status: 'draining' });
      const report = await evaluateReadiness(checks);
      return json(res, report.ready ? 200 : 503, { status: report.ready ? 'ready' : 'not_ready', checks: report.checks, ...(await details()) });
    }
    return json(res, 404, { status: 'not_found' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => json(res, 503, { status: 'unhealthy', reason: (err as Error).message }));
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
