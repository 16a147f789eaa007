import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, type Stack, type StackOptions } from '@app/stack';
import { httpsRequest, type HttpsResponse } from './https-client.js';

export interface TestStack extends Stack {
  dataDir: string;
  /** Calls the API over HTTPS, trusting the stack's certificate. */
  call(
    method: string,
    path: string,
    opts?: { headers?: Record<string, string>; json?: unknown; body?: string; edge?: number; from?: string; signal?: AbortSignal },
  ): Promise<HttpsResponse>;
  logs(): string;
}

/** The whole stack as `npm start` runs it, in a fresh data folder, logging to files. */
export async function startTestStack(opts: Partial<StackOptions> = {}): Promise<TestStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'render-stack-'));
  const logDir = join(dataDir, 'logs');
  const logs = () =>
    readdirSync(logDir)
      .map((f) => `--- ${f}\n${readFileSync(join(logDir, f), 'utf8').split('\n').slice(-40).join('\n')}`)
      .join('\n');
  let stack: Stack;
  try {
    stack = await startStack({ port: 0, dataDir, logs: { kind: 'files', dir: logDir }, ...opts, env: { LOG_LEVEL: 'info', ...opts.env } });
  } catch (err) {
    try {
      console.error(logs());
    } catch {
      // no logs yet
    }
    throw err;
  }
  return {
    ...stack,
    dataDir,
    logs,
    call(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      let body = o.body;
      if (o.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(o.json);
      }
      const port = stack.edgePorts[o.edge ?? 0] ?? stack.port;
      return httpsRequest(`https://127.0.0.1:${port}${path}`, { method, headers, body, ca: stack.certPem, servername: 'localhost', localAddress: o.from, signal: o.signal });
    },
    async stop() {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
