import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export type LogMode = { kind: 'console' } | { kind: 'files'; dir: string } | { kind: 'silent' };

export interface ServiceProcess {
  name: string;
  process: ChildProcess;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once (crash simulation). */
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

export interface HealthProbe {
  url: string;
  ca?: string;
}

/** Starts one service as its own Node process, with the telemetry hook loaded first. */
export function startServiceProcess(opts: {
  name: string;
  entry: string;
  env: NodeJS.ProcessEnv;
  logs: LogMode;
  cwd: string;
  /** Node and V8 options of this service's process (its heap's shape). */
  nodeFlags?: readonly string[] | undefined;
}): ServiceProcess {
  const args = ['--enable-source-maps', ...(opts.nodeFlags ?? []), '--import', '@app/telemetry/register', opts.entry];
  const child = spawn(process.execPath, args, {
    cwd: opts.cwd,
    env: { ...opts.env, OTEL_SERVICE_NAME: opts.env.OTEL_SERVICE_NAME ?? opts.name.replace(/-\d+$/, '') },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: Ctrl-C reaches only the launcher, which then drains every service
    // in order (a service signalled twice would exit without draining).
    detached: true,
  });
  pipeLogs(opts.name, child, opts.logs);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const done = () => child.exitCode !== null || child.signalCode !== null;
  return {
    name: opts.name,
    process: child,
    exited,
    async stop(graceMs = 20_000) {
      if (done()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (done()) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function pipeLogs(name: string, child: ChildProcess, mode: LogMode) {
  if (mode.kind === 'silent') {
    child.stdout?.resume();
    child.stderr?.resume();
    return;
  }
  if (mode.kind === 'files') {
    mkdirSync(mode.dir, { recursive: true });
    const out = createWriteStream(join(mode.dir, `${name}.log`), { flags: 'a' });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    return;
  }
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(`[${name}] ${line}\n`));
  }
}

function probeOnce(probe: HealthProbe): Promise<number> {
  return new Promise((resolve) => {
    const url = new URL(probe.url);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(url, { method: 'GET', timeout: 2_000, ...(probe.ca ? { ca: probe.ca } : {}) }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/**
 * Waits until the service's probe (its /readyz) answers 200, or fails when `timeoutMs` passes or the
 * service exited more than `toleratedExits` times. A supervised service is restarted after an exit (its
 * `exited` is then the new process's), so a start that failed for a passing reason (a port another
 * process was probing at that instant, a bus electing its leader) is waited through.
 */
export async function waitHealthy(
  service: Pick<ServiceProcess, 'name' | 'exited'>,
  probe: HealthProbe,
  timeoutMs = 60_000,
  toleratedExits = 0,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const followed = new Set<Promise<number | null>>();
  let exits = 0;
  let exitCode: number | null | undefined;
  const follow = () => {
    const exited = service.exited;
    if (followed.has(exited)) return;
    followed.add(exited);
    void exited.then((code) => {
      exits++;
      exitCode = code;
    });
  };
  while (Date.now() < deadline) {
    follow();
    if (exits > toleratedExits) {
      throw new Error(`${service.name} exited with code ${exitCode} before it was healthy${exits > 1 ? ` (${exits} times)` : ''}`);
    }
    if ((await probeOnce(probe)) === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${service.name} was not healthy within ${timeoutMs} ms (${probe.url})`);
}
