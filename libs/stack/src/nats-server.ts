import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort } from './free-port.js';

export interface RunningNats {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
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

/** Starts a JetStream-enabled nats-server on 127.0.0.1 with its store in `storeDir`. */
export async function startNatsServer(opts: { storeDir: string; port?: number }): Promise<RunningNats> {
  mkdirSync(opts.storeDir, { recursive: true });
  const port = opts.port ?? (await freePort());
  const child = spawn(natsServerBinary(), ['-js', '-sd', opts.storeDir, '-a', '127.0.0.1', '-p', String(port)], {
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
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}
