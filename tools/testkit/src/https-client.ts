import { request } from 'node:https';

export interface HttpsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json<T = unknown>(): T;
}

/** A request to the service over HTTPS, trusting its self-signed certificate (no verification is turned off). */
export function httpsRequest(
  url: string,
  opts: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    ca: string;
    servername?: string;
    timeoutMs?: number;
    /** The local address to connect from (another loopback address, e.g. 127.0.0.2, is another client). */
    localAddress?: string;
    /** Aborting it gives the request up: the connection is closed and the promise rejects. */
    signal?: AbortSignal;
  },
): Promise<HttpsResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: opts.headers,
        ca: opts.ca,
        servername: opts.servername,
        timeout: opts.timeoutMs ?? 60_000,
        localAddress: opts.localAddress,
        signal: opts.signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: <T>() => JSON.parse(body.toString('utf8')) as T,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}
