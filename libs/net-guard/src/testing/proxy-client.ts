import { request, type Agent, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

export interface ProxiedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  reusedSocket: boolean;
}

/** Sends one absolute-form request to the proxy, as a browser configured with it would. */
export function proxyRequest(
  proxyPort: number,
  target: string,
  opts: { method?: string; headers?: OutgoingHttpHeaders; body?: string; agent?: Agent } = {},
): Promise<ProxiedResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: proxyPort, path: target, method: opts.method ?? 'GET', headers: opts.headers, agent: opts.agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString(), reusedSocket: req.reusedSocket }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

export interface ConnectResult {
  status: number;
  socket: Socket;
}

/** Sends `CONNECT authority` to the proxy. */
export function proxyConnect(proxyPort: number, authority: string): Promise<ConnectResult> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: authority, agent: false });
    req.on('connect', (res, socket: Socket) => {
      socket.on('error', () => {});
      resolve({ status: res.statusCode ?? 0, socket });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Writes raw bytes on a socket and collects everything until the peer closes. */
export function exchange(socket: Socket, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
    socket.write(data);
  });
}
