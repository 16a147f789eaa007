import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export type ProxyRefusal = 400 | 403 | 502;

const REFUSALS: Record<ProxyRefusal, { reason: string; body: string }> = {
  400: { reason: 'Bad Request', body: 'Bad request.\n' },
  403: { reason: 'Forbidden', body: 'The target is not allowed.\n' },
  502: { reason: 'Bad Gateway', body: 'The target could not be reached.\n' },
};

/** Answers a proxied HTTP request with a short refusal; the client connection stays usable. */
export function refuseRequest(res: ServerResponse, status: ProxyRefusal): void {
  if (res.destroyed || res.writableEnded) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { body } = REFUSALS[status];
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Answers on a raw socket (a CONNECT, or a request the HTTP parser rejected) with a short refusal and closes it. */
export function refuseSocket(socket: Duplex, status: ProxyRefusal): void {
  if (socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const { reason, body } = REFUSALS[status];
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
