import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort } from './free-port.js';

export interface RunningNats {
  url: string;
  port: number;
  process: ChildProcess;
  /** The monitoring endpoint (/varz, /jsz, /healthz), when the server was started with one. */
  monitorUrl?: string;
  stop(): Promise<void>;
}

/** One member of a cluster: its name, the cluster's name, its route port and every member's route port. */
export interface ClusterMembership {
  serverName: string;
  clusterName: string;
  routePort: number;
  routePorts: number[];
}

export function natsServerBinary(): string {
  for (const candidate of [process.env.NATS_SERVER_BIN, '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  return 'nats-server';
}

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Command-line flags that make a server a member of a cluster whose routes are all on loopback. */
const clusterFlags = (c: ClusterMembership): string[] => [
  '--server_name',
  c.serverName,
  '--cluster_name',
  c.clusterName,
  '--cluster',
  `nats://127.0.0.1:${c.routePort}`,
  '--routes',
  c.routePorts.filter((p) => p !== c.routePort).map((p) => `nats://127.0.0.1:${p}`).join(','),
];

/**
 * Starts a JetStream-enabled nats-server on 127.0.0.1 with its store in `storeDir`; with `cluster`, as one
 * member of a cluster, and with `monitorPort`, its monitoring endpoint on that port. It returns once the
 * server accepts connections (a cluster member's JetStream may still be electing its leader).
 */
export async function startNatsServer(opts: { storeDir: string; port?: number; monitorPort?: number; cluster?: ClusterMembership }): Promise<RunningNats> {
  mkdirSync(opts.storeDir, { recursive: true });
  const port = opts.port ?? (await freePort());
  const args = ['-js', '-sd', opts.storeDir, '-a', '127.0.0.1', '-p', String(port)];
  if (opts.monitorPort) args.push('-m', String(opts.monitorPort));
  if (opts.cluster) args.push(...clusterFlags(opts.cluster));
  const child = spawn(natsServerBinary(), args, {
    // Its own folder as working directory: a test run once left a consumer's meta.inf/meta.sum (nats-server's
    // files) in the repository's root, the working directory it inherited.
    cwd: opts.storeDir,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4_000);
  });
  const spawnError = new Promise<never>((_, reject) => {
    child.once('error', (err) =>
      reject(new Error(`Cannot start nats-server (${err.message}): install it (apt-get install nats-server) or set NATS_URL`)),
    );
    child.once('exit', (code) => reject(new Error(`nats-server exited with code ${code}: ${stderr.trim()}`)));
  });
  const ready = (async () => {
    for (let i = 0; i < 200; i++) {
      if (await canConnect(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nats-server did not accept connections on port ${port}: ${stderr.trim()}`);
  })();
  await Promise.race([ready, spawnError]);
  spawnError.catch(() => undefined);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    process: child,
    ...(opts.monitorPort ? { monitorUrl: `http://127.0.0.1:${opts.monitorPort}` } : {}),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}
