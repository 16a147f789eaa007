import { envAddresses, envBool, envInt, envOptional, envPort, envString, loadConfig, z } from '@app/config';

const schema = z
  .object({
    PORT: envPort(8443),
    HOST: envString('0.0.0.0'),
    /** PEM certificate and key for HTTPS. */
    TLS_CERT_FILE: envOptional(),
    TLS_KEY_FILE: envOptional(),
    /** Serve plain HTTP: only behind a TLS-terminating proxy. */
    EDGE_PLAIN_HTTP: envBool(false),
    NATS_URL: envString('nats://127.0.0.1:4222'),
    /** Copies of every stream and bucket NATS keeps (1 on one server, 3 on a cluster). */
    NATS_REPLICAS: envInt(1, 1, 5),
    AUTH_QUOTA_ADDR: envAddresses('127.0.0.1:50051'),
    SCHEDULER_ADDR: envAddresses('127.0.0.1:50052'),
    /** Let pages and webhooks reach private and loopback addresses (local use and tests only). */
    ALLOW_PRIVATE_TARGETS: envBool(false),
    /** Extra time the edge waits past a render's timeout for its answer (queueing, redelivery). */
    EDGE_RENDER_WAIT_MARGIN_MS: envInt(3_000, 0, 60_000),
    /** A synchronous render no renderer has started within this is shed: 503 renderer_unavailable with Retry-After. */
    EDGE_RENDER_START_TIMEOUT_MS: envInt(3_000, 100, 60_000),
    /** Operations port: /healthz, /readyz and /metrics (Prometheus), kept off the public API port. */
    EDGE_HEALTH_PORT: envPort(9100),
    /** Address the operations port listens on (0.0.0.0 for a scraper in another container). */
    HEALTH_HOST: envString('127.0.0.1'),
    EDGE_BODY_LIMIT_BYTES: envInt(6 * 1024 * 1024, 1_024),
    /** How long a refused access key is answered 401 without asking auth-quota (0 turns it off). */
    EDGE_REFUSED_KEY_TTL_MS: envInt(10_000, 0, 600_000),
    /** Memory each edge may use to keep result files it serves often (cache hits). */
    EDGE_FILE_MEMORY_BYTES: envInt(256 * 1024 * 1024, 0),
    /** Public origin for result file URLs (e.g. https://api.example.com); default: the request's origin. */
    EDGE_PUBLIC_URL: envOptional(),
    /** How long an async job may wait in the queue before its render starts (keep it under auth-quota's reservation TTL). */
    EDGE_ASYNC_QUEUE_WAIT_MS: envInt(60_000, 1_000),
    /** How often expired files, cache entries and stuck async renders are swept. */
    EDGE_SWEEP_INTERVAL_MS: envInt(60_000, 100),
    /** Write what one event-loop turn sends to its connections together, at the turn's end (http/coalesced-writes.ts). */
    EDGE_COALESCE_WRITES: envBool(true),
  })
  .superRefine((c, ctx) => {
    if (c.EDGE_PLAIN_HTTP) return;
    for (const key of ['TLS_CERT_FILE', 'TLS_KEY_FILE'] as const) {
      if (!c[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required for HTTPS (or set EDGE_PLAIN_HTTP=1 behind a TLS proxy)' });
    }
  });

export function parseConfig(env: NodeJS.ProcessEnv = process.env) {
  const c = loadConfig(schema, env);
  return {
    port: c.PORT,
    host: c.HOST,
    tls: c.EDGE_PLAIN_HTTP ? undefined : { certFile: c.TLS_CERT_FILE!, keyFile: c.TLS_KEY_FILE! },
    natsUrl: c.NATS_URL,
    natsReplicas: c.NATS_REPLICAS,
    authQuotaAddress: c.AUTH_QUOTA_ADDR,
    schedulerAddress: c.SCHEDULER_ADDR,
    allowPrivateTargets: c.ALLOW_PRIVATE_TARGETS,
    renderWaitMarginMs: c.EDGE_RENDER_WAIT_MARGIN_MS,
    renderStartTimeoutMs: c.EDGE_RENDER_START_TIMEOUT_MS,
    healthPort: c.EDGE_HEALTH_PORT,
    healthHost: c.HEALTH_HOST,
    bodyLimitBytes: c.EDGE_BODY_LIMIT_BYTES,
    refusedKeyTtlMs: c.EDGE_REFUSED_KEY_TTL_MS,
    fileMemoryBytes: c.EDGE_FILE_MEMORY_BYTES,
    publicUrl: c.EDGE_PUBLIC_URL,
    asyncQueueWaitMs: c.EDGE_ASYNC_QUEUE_WAIT_MS,
    sweepIntervalMs: c.EDGE_SWEEP_INTERVAL_MS,
    coalesceWrites: c.EDGE_COALESCE_WRITES,
  };
}

export type EdgeConfig = ReturnType<typeof parseConfig>;
