import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openTunnel } from './connect-tunnel.js';
import { forwardHttp } from './forward-http.js';
import type { LookupFn } from './lookup.js';
import { createProxyContext, type BlockedRequest } from './proxy-context.js';
import { refuseRequest, refuseSocket } from './proxy-responses.js';

export interface EgressProxyOptions {
  /** Skip the address-class check (self-hosted intranet rendering); names must still resolve. */
  allowPrivate: boolean;
  lookup?: LookupFn | undefined;
  /** Called for each refused target (403), for logging. Must not throw; if it does, it is ignored. */
  onBlocked?: ((info: BlockedRequest) => void) | undefined;
  /** Address to listen on; default 127.0.0.1. Never expose the proxy beyond the renderer host. */
  host?: string | undefined;
  /** Port to listen on; default 0 (any free port). */
  port?: number | undefined;
  /** Time allowed to connect to an upstream address; default 10 s. */
  connectTimeoutMs?: number | undefined;
  /** An upstream or tunnel socket idle this long is closed; default 120 s. */
  idleTimeoutMs?: number | undefined;
}

export interface EgressProxy {
  port: number;
  /** `http://host:port`, for Chromium's `--proxy-server`. */
  url: string;
  close(): Promise<void>;
  stats(): { allowed: number; blocked: number };
}

/**
 * A forward proxy that pins every connection to addresses it resolved and checked itself, so the SSRF policy
 * holds at the network layer for everything a page loads (subresources, frames, redirects, fetch, WebSocket).
 * Plain HTTP comes as absolute-form requests; HTTPS, wss and ws as CONNECT tunnels.
 */
export async function startEgressProxy(opts: EgressProxyOptions): Promise<EgressProxy> {
  const ctx = createProxyContext({
    allowPrivate: opts.allowPrivate,
    lookup: opts.lookup,
    onBlocked: opts.onBlocked,
    connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
    idleTimeoutMs: opts.idleTimeoutMs ?? 120_000,
  });
  const server = createServer();
  server.on('connection', (socket) => ctx.track(socket));
  server.on('request', (req, res) => {
    forwardHttp(req, res, ctx).catch(() => refuseRequest(res, 502));
  });
  server.on('connect', (req, socket, head) => {
    openTunnel(req, socket, head, ctx).catch(() => refuseSocket(socket, 502));
  });
  server.on('clientError', (_err, socket) => refuseSocket(socket, 400));

  const host = opts.host ?? '127.0.0.1';
  const port = await listen(server, host, opts.port ?? 0);
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    stats: () => ctx.stats(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        ctx.destroyAll();
      }),
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
