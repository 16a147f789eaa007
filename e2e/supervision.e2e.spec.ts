import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, freePort } from '@app/stack';
import { httpsRequest, until } from '@app/testkit';

// The launcher exactly as `npm start` runs it (scripts/start.mjs, console logs), killed into from outside.
let launcher: ChildProcess;
let output = '';
let port: number;
let ca: string;
let accessKey: string;
const opsUrls: Record<string, string> = {};
const dataDir = mkdtempSync(join(tmpdir(), 'render-launcher-'));

beforeAll(async () => {
  port = await freePort();
  launcher = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, NATS_URL: '', LOG_FILES: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  launcher.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  launcher.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await until(() => output.includes('Press Ctrl-C to stop.') || launcher.exitCode !== null, 170_000, 'the launcher to start');
  if (launcher.exitCode !== null) throw new Error(`the launcher exited: ${output.slice(-3_000)}`);
  for (const [, name, url] of output.matchAll(/^\s+([a-z0-9-]+)\s+(http:\/\/127\.0\.0\.1:\d+)\/metrics$/gm)) opsUrls[name!] = url!;
  accessKey = /access key: (\S+)/.exec(output)![1]!;
  ca = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
});

afterAll(async () => {
  if (launcher && launcher.exitCode === null) {
    launcher.kill('SIGINT');
    await new Promise((r) => launcher.once('exit', r));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const api = (method: string, path: string, json?: unknown) =>
  httpsRequest(`https://127.0.0.1:${port}${path}`, {
    method,
    ca,
    servername: 'localhost',
    timeoutMs: 5_000,
    headers: { 'x-access-key': accessKey, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  }).catch(() => ({ status: 0 }));

const probe = async (url: string) => {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return { status: res.status, body: (await res.json()) as { pid?: number } };
  } catch {
    return { status: 0, body: {} };
  }
};

/** What "serving again" means for each service, seen from the public API. */
const serving: Record<string, () => Promise<boolean>> = {
  'edge-http': async () => (await api('GET', '/v1/usage')).status === 200,
  'auth-quota': async () => (await api('GET', '/v1/usage')).status === 200,
  scheduler: async () => (await api('GET', '/v1/tasks')).status === 200,
  'renderer-1': async () => (await api('POST', '/v1/screenshot', { html: '<p>back</p>' })).status === 200,
  'webhook-dispatcher': async () => (await probe(`${opsUrls['webhook-dispatcher']}/readyz`)).status === 200,
};

const pids = new Set<number>();

describe('The launcher (npm start)', () => {
  describe.each(['auth-quota', 'scheduler', 'webhook-dispatcher', 'renderer-1', 'edge-http'])('When %s is killed with SIGKILL', (name) => {
    it('should log its death and have it back and serving within 10 s', async () => {
      const before = (await probe(`${opsUrls[name]}/healthz`)).body.pid!;
      expect(before).toBeGreaterThan(0);
      pids.add(before);
      process.kill(before, 'SIGKILL');
      const killedAt = Date.now();
      await until(
        async () => {
          const health = await probe(`${opsUrls[name]}/readyz`);
          return health.status === 200 && (await serving[name]!());
        },
        30_000,
        `${name} back and serving`,
      );
      const backMs = Date.now() - killedAt;
      console.log(`${name}: back and serving ${backMs} ms after SIGKILL`);
      expect(backMs).toBeLessThan(10_000);
      const after = (await probe(`${opsUrls[name]}/healthz`)).body.pid!;
      expect(after).not.toBe(before);
      pids.add(after);
      expect(output).toMatch(new RegExp(`\\[launcher\\].* ${name} \\(pid ${before}\\) exited unexpectedly \\(signal SIGKILL\\); restarting`));
    });
  });

  describe('When the NATS server it started is killed with SIGKILL', () => {
    it('should restart it on the same port, and the services follow', async () => {
      const pid = Number(execFileSync('pgrep', ['-f', `nats-server.*${join(dataDir, 'nats')}`], { encoding: 'utf8' }).trim().split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      const killedAt = Date.now();
      await until(async () => (await api('POST', '/v1/screenshot', { html: '<p>bus back</p>' })).status === 200, 30_000, 'renders again');
      console.log(`nats-server: the stack renders again ${Date.now() - killedAt} ms after SIGKILL`);
      expect(output).toMatch(new RegExp(`\\[launcher\\].* nats-server \\(pid ${pid}\\) exited unexpectedly`));
    });
  });

  describe('When it gets Ctrl-C', () => {
    it('should drain every service and exit 0, saying so', async () => {
      const services = await Promise.all(Object.values(opsUrls).map(async (url) => (await probe(`${url}/healthz`)).body.pid!));
      launcher.kill('SIGINT');
      const code = await new Promise<number | null>((r) => launcher.once('exit', (c) => r(c)));
      expect(code).toBe(0);
      expect(output).toContain('Stopped.');
      expect(output).not.toMatch(/exited unexpectedly[^\n]*\n[^\n]*$/); // no restart during the drain
      for (const pid of services) expect(() => process.kill(pid, 0)).toThrow();
    });
  });
});
