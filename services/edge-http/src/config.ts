import { envAddress, envBool, envInt, envOptional, envPort, envString, loadConfig, z } from '@app/config';

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
    AUTH_QUOTA_ADDR: envAddress('127.0.0.1:50051'),
    SCHEDULER_ADDR: envAddress('127.0.0.1:50052'),
    /** Let pages and webhooks reach private and loopback addresses (local use and tests only). */
    ALLOW_PRIVATE_TARGETS: envBool(false),
    /** Extra time the edge waits past a render's timeout for its answer (queueing, redelivery). */
    EDGE_RENDER_WAIT_MARGIN_MS: envInt(3_000, 0, 60_000),
    EDGE_BODY_LIMIT_BYTES: envInt(6 * 1024 * 1024, 1_024),
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
    authQuotaAddress: c.AUTH_QUOTA_ADDR,
    schedulerAddress: c.SCHEDULER_ADDR,
    allowPrivateTargets: c.ALLOW_PRIVATE_TARGETS,
    renderWaitMarginMs: c.EDGE_RENDER_WAIT_MARGIN_MS,
    bodyLimitBytes: c.EDGE_BODY_LIMIT_BYTES,
  };
}

export type EdgeConfig = ReturnType<typeof parseConfig>;
