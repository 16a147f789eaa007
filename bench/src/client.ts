import { Agent, request } from 'node:https';

/** Calls the service over HTTPS with keep-alive, as a client in production would. */
export function serviceClient(opts: { baseUrl: string; ca: string; accessKey: string }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: opts.ca });
  const call = (path: string, body: unknown, accessKey = opts.accessKey) =>
    new Promise<{ status: number; bytes: number; headers: Record<string, unknown>; error?: string }>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = request(
        `${opts.baseUrl}${path}`,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'x-access-key': accessKey },
        },
        (res) => {
          let bytes = 0;
          let error = '';
          res.on('data', (c: Buffer) => {
            bytes += c.length;
            if (res.statusCode !== 200 && error.length < 500) error += c.toString('utf8');
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, headers: res.headers, ...(error ? { error } : {}) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return {
    call,
    /** One render that must succeed (with the client's key, or `accessKey`). */
    async render(operation: string, params: Record<string, unknown>, accessKey?: string): Promise<void> {
      const res = await call(`/v1/${operation}`, params, accessKey);
      if (res.status !== 200) throw new Error(`${operation} answered ${res.status}${res.error ? `: ${res.error}` : ''}`);
    },
    /**
     * A render task for runConcurrently whose clients render for `accessKeys` in turn, one account per
     * client (the client's own key without them).
     */
    rendersFor(accessKeys: string[] | undefined, operation: string, params: Record<string, unknown>) {
      const keys = accessKeys?.length ? accessKeys : [opts.accessKey];
      return (_: number, worker: number) => this.render(operation, params, keys[worker % keys.length]);
    },
    close: () => agent.destroy(),
  };
}

export type ServiceClient = ReturnType<typeof serviceClient>;
