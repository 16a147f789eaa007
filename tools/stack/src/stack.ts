import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDemoAccount, type DemoKeys } from './demo-account.js';
import { freePort } from './free-port.js';
import { startLocalNats, type SupervisedNats } from './nats-cluster.js';
import { waitHealthy, type LogMode } from './service-process.js';
import { RESTART_BACKOFF_MS, superviseService, type SupervisedService } from './supervisor.js';
import { ensureSelfSignedCertificate } from './tls-certificate.js';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../../../', import.meta.url)));

export const SERVICES = ['auth-quota', 'scheduler', 'webhook-dispatcher', 'renderer', 'edge-http'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface StackOptions {
  /** HTTPS port of the API (0 picks a free one). */
  port: number;
  dataDir: string;
  /** An existing NATS server; otherwise one is started with its store in the data folder. */
  natsUrl?: string;
  /**
   * Servers of the NATS the stack starts (no natsUrl): 1 (default) or a cluster of this many on loopback,
   * every stream and bucket then kept in min(size, 3) replicas unless env says NATS_REPLICAS.
   */
  natsClusterSize?: number;
  renderers?: number;
  /** edge-http replicas; the first listens on `port`, the others on free ports. */
  edges?: number;
  /** Extra environment of each edge replica, in replica order (over `env`). */
  edgeEnv?: NodeJS.ProcessEnv[];
  /** scheduler replicas on the same event store; the edges call the first. */
  schedulers?: number;
  /** auth-quota replicas (default 1), each on its own gRPC port; every client spreads its calls over all. */
  authQuotaReplicas?: number;
  /** Extra environment for every service (ALLOW_PRIVATE_TARGETS, OTEL_*, plan limits...). */
  env?: NodeJS.ProcessEnv;
  demoKeys?: Partial<DemoKeys>;
  logs?: LogMode;
}

export interface Stack {
  baseUrl: string;
  port: number;
  /** Ports of every edge-http replica (the first is `port`). */
  edgePorts: number[];
  /** The first auth-quota replica (administration tools may use any). */
  authQuotaAddress: string;
  /** Every auth-quota replica, in replica order. */
  authQuotaAddresses: string[];
  schedulerAddress: string;
  /** PEM of the self-signed certificate, for clients that should trust it. */
  certPem: string;
  /** Every server of the NATS the stack started (none when given natsUrl). */
  natsServers: SupervisedNats[];
  /** The URL of every server, comma-separated, as the services get it in NATS_URL. */
  natsUrl: string;
  demo: DemoKeys;
  /** Every service process, supervised: one that exits unexpectedly is restarted. */
  processes: SupervisedService[];
  /** Operations port of each process by name (/healthz, /readyz, /metrics), e.g. http://127.0.0.1:9101. */
  opsUrls: Record<string, string>;
  /** Starts one more renderer process on the same NATS. */
  addRenderer(): Promise<SupervisedService>;
  /**
   * Starts a process again by name (`auth-quota`, `renderer-1`…, or replica `replica` of a service) after a
   * test killed it with `restart: false`; waits until it is ready.
   */
  relaunch(name: string, replica?: number): Promise<SupervisedService>;
  stop(): Promise<void>;
}

/** Every service answers /healthz, /readyz and /metrics on an operations port of its own. */
const HEALTH_PORT_VARIABLE: Record<ServiceName, string> = {
  'edge-http': 'EDGE_HEALTH_PORT',
  'auth-quota': 'AUTH_QUOTA_HEALTH_PORT',
  scheduler: 'SCHEDULER_HEALTH_PORT',
  'webhook-dispatcher': 'WEBHOOK_HEALTH_PORT',
  renderer: 'RENDERER_HEALTH_PORT',
};

/**
 * How a service's process is started: `config.node_flags` (Node and V8 options) and `config.env` (variables
 * read when the process starts, `NAME=value` words: the C library's memory allocator's) in its package.json,
 * the one place they are stated (its `npm start` passes them as `$npm_package_config_*`, the container image
 * reads them too). The edge's flags are its semi-spaces of 32 MiB, the scheduler's environment keeps its
 * comparisons' freed memory for the next (docs/operations.md says why).
 */
function processSettingsOf(service: ServiceName): { nodeFlags: string[]; env: Record<string, string> } {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'services', service, 'package.json'), 'utf8')) as {
    config?: { node_flags?: string; env?: string };
  };
  const words = (text = '') => text.split(/\s+/).filter(Boolean);
  const env = Object.fromEntries(words(manifest.config?.env).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
  return { nodeFlags: words(manifest.config?.node_flags), env };
}

const entry = (service: ServiceName) => join(REPO_ROOT, 'services', service, 'dist', 'main.js');

/** Starts NATS (unless given) and the five services as separate processes, like `npm start`. */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const dataDir = resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const logs = opts.logs ?? { kind: 'console' };
  // What the launcher itself has to say (a service died, was restarted), beside the services' logs.
  const log =
    logs.kind === 'console'
      ? (line: string) => process.stderr.write(`[launcher] ${new Date().toISOString()} ${line}\n`)
      : logs.kind === 'files'
        ? (line: string) => {
            mkdirSync(logs.dir, { recursive: true });
            appendFileSync(join(logs.dir, 'launcher.log'), `${new Date().toISOString()} ${line}\n`);
          }
        : () => undefined;
  const tls = await ensureSelfSignedCertificate(join(dataDir, 'tls'));
  let natsServers: SupervisedNats[] = [];
  const processes: SupervisedService[] = [];
  const opsUrls: Record<string, string> = {};

  // Last resort if this process exits without stop(): no orphaned service keeps running.
  const killAll = () => {
    for (const p of processes) if (p.process.exitCode === null && p.process.signalCode === null) p.process.kill('SIGKILL');
    for (const n of natsServers) if (n.process?.exitCode === null) n.process.kill('SIGKILL');
  };
  process.once('exit', killAll);

  const stopAll = async () => {
    process.removeListener('exit', killAll);
    // The edge first (no new request comes in), then the rest at once (each drains its own work while the
    // bus is still up), then the bus.
    const stopping = (front: boolean) => processes.filter((p) => p.name.startsWith('edge-http') === front).map((p) => p.stop());
    await Promise.all(stopping(true));
    await Promise.all(stopping(false));
    await Promise.all(natsServers.map((n) => n.stop()));
  };

  try {
    // The NATS servers this launcher starts are supervised like the services: restarted on the same port and store.
    const clusterSize = opts.natsUrl ? 1 : Math.max(1, opts.natsClusterSize ?? 1);
    if (!opts.natsUrl) natsServers = await startLocalNats(join(dataDir, 'nats'), clusterSize, log);
    const natsUrl = opts.natsUrl ?? natsServers.map((n) => n.url).join(',');
    const natsReplicas = opts.env?.NATS_REPLICAS ?? process.env.NATS_REPLICAS ?? String(Math.min(clusterSize, 3));
    const port = opts.port === 0 ? await freePort() : opts.port;
    const authQuotaAddresses: string[] = [];
    for (let i = 0; i < Math.max(1, opts.authQuotaReplicas ?? 1); i++) authQuotaAddresses.push(`127.0.0.1:${await freePort()}`);
    const authQuotaAddress = authQuotaAddresses[0]!;
    /** What a replica needs of its own (its gRPC address), beyond the stack's environment. */
    const replicaEnv = (service: ServiceName, replica: number): NodeJS.ProcessEnv =>
      service === 'auth-quota' ? { AUTH_QUOTA_GRPC_ADDR: authQuotaAddresses[replica] } : {};
    const schedulerAddress = `127.0.0.1:${await freePort()}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...opts.env,
      NATS_URL: natsUrl,
      NATS_REPLICAS: natsReplicas,
      DATA_DIR: dataDir,
      AUTH_QUOTA_GRPC_ADDR: authQuotaAddress,
      AUTH_QUOTA_ADDR: authQuotaAddresses.join(','),
      SCHEDULER_GRPC_ADDR: schedulerAddress,
      SCHEDULER_ADDR: schedulerAddress,
      PORT: String(port),
      TLS_CERT_FILE: tls.certFile,
      TLS_KEY_FILE: tls.keyFile,
    };

    let renderers = 0;
    const launch = async (service: ServiceName, extra: NodeJS.ProcessEnv = {}, replica = 0) => {
      const healthPort = await freePort();
      const name = service === 'renderer' ? `renderer-${++renderers}` : replica > 0 ? `${service}-${replica + 1}` : service;
      const settings = processSettingsOf(service);
      const p = superviseService({
        name,
        entry: entry(service),
        nodeFlags: settings.nodeFlags,
        env: {
          ...settings.env,
          ...env,
          ...extra,
          [HEALTH_PORT_VARIABLE[service]]: String(healthPort),
          ...(service === 'renderer' ? { RENDERER_ID: name } : {}),
        },
        logs,
        cwd: REPO_ROOT,
        log,
      });
      processes.push(p);
      opsUrls[name] = `http://127.0.0.1:${healthPort}`;
      // Restarted by its supervisor up to twice (a passing failure); a third exit is a start that fails.
      await waitHealthy(p, { url: `${opsUrls[name]}/readyz` }, 60_000, 2);
      return p;
    };
    const relaunch = async (service: string, replica = 0) => {
      const name = replica > 0 ? `${service}-${replica + 1}` : service;
      const p = processes.find((candidate) => candidate.name === name);
      if (!p) throw new Error(`no ${name} in this stack`);
      p.start();
      await waitHealthy(p, { url: `${opsUrls[name]}/readyz` });
      return p;
    };

    // Every service at once: none needs another to start (gRPC clients connect on first call, and each
    // service declares the bus topology it uses). Only auth-quota's extra replicas wait for the first, which
    // creates what the data folder lacks.
    const edgePorts = [port];
    for (let i = 1; i < (opts.edges ?? 1); i++) edgePorts.push(await freePort());
    const extraSchedulers = Array.from({ length: Math.max(0, (opts.schedulers ?? 1) - 1) }, async (_, i) =>
      launch('scheduler', { SCHEDULER_GRPC_ADDR: `127.0.0.1:${await freePort()}` }, i + 1),
    );
    // Settled, all of them, before a failure is thrown: stopping then finds every process that was started.
    const launched = await Promise.allSettled([
      launch('auth-quota').then(() =>
        Promise.all(authQuotaAddresses.slice(1).map((_, i) => launch('auth-quota', replicaEnv('auth-quota', i + 1), i + 1))),
      ),
      launch('scheduler'),
      ...extraSchedulers,
      launch('webhook-dispatcher'),
      ...Array.from({ length: opts.renderers ?? 1 }, () => launch('renderer')),
      ...edgePorts.map((p, i) => launch('edge-http', { ...opts.edgeEnv?.[i], PORT: String(p) }, i)),
    ]);
    const failed = launched.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const demo = await ensureDemoAccount({ authQuotaAddress, dataDir, fixed: opts.demoKeys });
    // Where the running services are, for tools such as `npm run admin`.
    writeFileSync(join(dataDir, 'stack.json'), JSON.stringify({ authQuotaAddress, natsUrl, edgePorts }, null, 2));

    return {
      baseUrl: `https://localhost:${port}`,
      port,
      edgePorts,
      authQuotaAddress,
      authQuotaAddresses,
      schedulerAddress,
      certPem: tls.certPem,
      natsServers,
      natsUrl,
      demo,
      processes,
      opsUrls,
      addRenderer: () => launch('renderer'),
      relaunch,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
