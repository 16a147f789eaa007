import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ProxyContext } from './proxy-context.js';
import { refuseSocket } from './proxy-responses.js';
import { parseConnectAuthority } from './proxy-target.js';

/**
 * Serves `CONNECT host:port` (HTTPS, wss and ws from Chromium): resolves and checks the host once,
 * then splices the client to a TCP connection to the validated IP.
 */
export async function openTunnel(req: IncomingMessage, client: Duplex, head: Buffer, ctx: ProxyContext): Promise<void> {
  client.on('error', () => client.destroy());

  const target = parseConnectAuthority(req.url ?? '');
  if (!target) return refuseSocket(client, 400);
  const admission = await ctx.admit(target);
  if (!admission.ok) return refuseSocket(client, admission.status);

  let upstream: Socket;
  try {
    upstream = await ctx.dial(admission.addresses, target.port);
  } catch {
    return refuseSocket(client, 502);
  }
  if (client.destroyed) {
    upstream.destroy();
    return;
  }
  ctx.track(client, true);
  client.once('close', () => upstream.destroy());
  upstream.once('close', () => client.destroy());
  client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length > 0) upstream.write(head);
  upstream.pipe(client);
  client.pipe(upstream);
}
