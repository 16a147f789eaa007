import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { startNatsServer, type RunningNats } from './nats-server.js';
import { RESTART_BACKOFF_MS } from './supervisor.js';

export type NatsServerOptions = Parameters<typeof startNatsServer>[0];

/** The name of the cluster the launcher starts. */
export const LOCAL_CLUSTER_NAME = 'render-local';

/**
 * Where each server of a local NATS of `size` servers listens and keeps its store: one server keeps its
 * store in `storeDir` itself; a cluster's members, named nats-1, nats-2..., each in a folder of their own,
 * with routes to each other on loopback and a monitoring endpoint (/varz, /jsz, /healthz) each.
 */
export async function localNatsPlan(storeDir: string, size: number): Promise<NatsServerOptions[]> {
  if (size <= 1) return [{ storeDir, port: await freePort() }];
  const members = [];
  for (let i = 0; i < size; i++) members.push({ port: await freePort(), routePort: await freePort(), monitorPort: await freePort() });
  const routePorts = members.map((m) => m.routePort);
  return members.map((m, i) => ({
    storeDir: join(storeDir, `node-${i + 1}`),
    port: m.port,
    monitorPort: m.monitorPort,
    cluster: { serverName: `nats-${i + 1}`, clusterName: LOCAL_CLUSTER_NAME, routePort: m.routePort, routePorts },
  }));
}

/** One NATS server the launcher started and restarts when it exits unexpectedly (same port, same store). */
export interface SupervisedNats {
  /** The server's name in its cluster (nats-1...), or `nats-server` alone. */
  name: string;
  url: string;
  monitorUrl?: string;
  /** The current process (undefined while it is down). */
  readonly process: ChildProcess | undefined;
  /** How many times it was restarted after an unexpected exit. */
  readonly restarts: number;
  /** SIGKILL at once, as a crash: restarted like any unexpected exit unless `restart: false`. */
  kill(opts?: { restart?: boolean }): Promise<void>;
  /** Starts it again after kill({ restart: false }); resolves once it accepts connections. */
  start(): Promise<void>;
  /** Deliberate stop: not restarted. */
  stop(): Promise<void>;
}

/** Starts one server under supervision; resolves once it accepts connections. */
export async function superviseNats(options: NatsServerOptions, log: (line: string) => void): Promise<SupervisedNats> {
  const name = options.cluster?.serverName ?? 'nats-server';
  let current: RunningNats | undefined;
  let wanted = true;
  let restarts = 0;
  let timer: NodeJS.Timeout | undefined;

  const watch = (running: RunningNats) => {
    running.process.once('exit', (code, signal) => {
      if (current !== running) return;
      current = undefined;
      if (!wanted) return;
      log(`${name} (pid ${running.process.pid}) exited unexpectedly (${signal ? `signal ${signal}` : `code ${code}`}); restarting`);
      restart(0);
    });
  };
  const launch = async () => {
    const running = await startNatsServer(options);
    current = running;
    watch(running);
  };
  const restart = (attempt: number) => {
    timer = setTimeout(() => {
      timer = undefined;
      if (!wanted) return;
      launch().then(
        () => {
          restarts++;
          log(`${name} restarted (pid ${current?.process.pid})`);
        },
        (err: Error) => {
          log(`${name} did not restart (${err.message}); trying again`);
          restart(attempt + 1);
        },
      );
    }, RESTART_BACKOFF_MS[Math.min(attempt, RESTART_BACKOFF_MS.length - 1)]!);
  };
  await launch();
  const exitOf = (running: RunningNats | undefined) =>
    running && running.process.exitCode === null && running.process.signalCode === null
      ? new Promise<void>((resolve) => running.process.once('exit', () => resolve()))
      : Promise.resolve();

  return {
    name,
    url: `nats://127.0.0.1:${options.port}`,
    ...(options.monitorPort ? { monitorUrl: `http://127.0.0.1:${options.monitorPort}` } : {}),
    get process() {
      return current?.process;
    },
    get restarts() {
      return restarts;
    },
    async kill(o = {}) {
      if (o.restart === false) {
        wanted = false;
        clearTimeout(timer);
      }
      const running = current;
      const exited = exitOf(running);
      running?.process.kill('SIGKILL');
      await exited;
    },
    async start() {
      if (wanted) return;
      wanted = true;
      await launch();
    },
    async stop() {
      wanted = false;
      clearTimeout(timer);
      await current?.stop();
    },
  };
}

/**
 * Waits until the server's JetStream is ready: its /healthz answers 200 once it has a meta leader and is
 * current with it (a cluster member right after start, or after a restart).
 */
export async function waitJetStreamHealthy(monitorUrl: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${monitorUrl}/healthz`);
      if (res.ok) return;
      last = await res.text();
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`JetStream at ${monitorUrl} not healthy after ${timeoutMs} ms: ${last}`);
}

/** Starts a local NATS of `size` servers under supervision (see localNatsPlan); resolves once JetStream is ready on each. */
export async function startLocalNats(storeDir: string, size: number, log: (line: string) => void): Promise<SupervisedNats[]> {
  const plan = await localNatsPlan(storeDir, size);
  const started = await Promise.allSettled(plan.map((options) => superviseNats(options, log)));
  const nodes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  try {
    if (failed) throw failed.reason;
    await Promise.all(nodes.map((n) => (n.monitorUrl ? waitJetStreamHealthy(n.monitorUrl) : undefined)));
  } catch (err) {
    await Promise.all(nodes.map((n) => n.stop()));
    throw err;
  }
  return nodes;
}
