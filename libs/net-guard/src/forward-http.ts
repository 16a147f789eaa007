import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { untraced } from '@app/telemetry';
import { endToEndHeaders } from './hop-by-hop.js';
import type { ProxyContext } from './proxy-context.js';
import { refuseRequest } from './proxy-responses.js';
import { parseAbsoluteForm, portOf } from './proxy-target.js';

/**
 * Forwards one plain-HTTP proxy request (`GET http://host/path`): resolves and checks the host once,
 * dials the validated IP itself, streams the request body up and the response down.
 */
export async function forwardHttp(req: IncomingMessage, res: ServerResponse, ctx: ProxyContext): Promise<void> {
  req.on('error', () => req.destroy());
  res.on('error', () => res.destroy());

  const url = parseAbsoluteForm(req.url ?? '');
  if (!url) return refuseRequest(res, 400);
  const target = { hostname: url.hostname, port: portOf(url) };
  const admission = url.protocol === 'http:' ? await ctx.admit(target) : ctx.refuse(target, 'scheme_not_allowed');
  if (!admission.ok) return refuseRequest(res, admission.status);

  let upstream: Socket;
  try {
    upstream = await ctx.dial(admission.addresses, target.port);
  } catch {
    return refuseRequest(res, 502);
  }
  if (res.destroyed || req.socket.destroyed) {
    upstream.destroy();
    return;
  }
  relay(req, res, url, upstream);
}

function relay(req: IncomingMessage, res: ServerResponse, url: URL, upstream: Socket): void {
  // Untraced: the page's request goes on exactly as the browser made it, with no trace context added.
  const upstreamReq = request(
    untraced({
      method: req.method,
      path: `${url.pathname}${url.search}`,
      // RFC 9112 §3.2.2: a proxy replaces Host with the authority of the absolute-form target.
      headers: ['Host', url.host, ...endToEndHeaders(req.rawHeaders, ['host'])],
      createConnection: () => upstream,
    }),
  );

  upstreamReq.on('error', () => refuseRequest(res, 502));
  upstreamReq.on('response', (upstreamRes) => {
    upstreamRes.on('error', () => res.destroy());
    try {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, endToEndHeaders(upstreamRes.rawHeaders));
    } catch {
      upstreamReq.destroy();
      res.destroy();
      return;
    }
    upstreamRes.pipe(res);
  });
  res.on('close', () => {
    if (!res.writableFinished) upstreamReq.destroy();
  });
  req.on('error', () => upstreamReq.destroy());
  req.pipe(upstreamReq);
}
