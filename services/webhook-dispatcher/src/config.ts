import { envAddresses, envBool, envInt, envOptional, envPort, envString, loadConfig, z } from '@app/config';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './domain/retry-schedule.js';

const schema = z.object({
  NATS_URL: envString('nats://127.0.0.1:4222'),
  /** Copies of every stream and bucket NATS keeps (1 on one server, 3 on a cluster). */
  NATS_REPLICAS: envInt(1, 1, 5),
  WEBHOOK_HEALTH_PORT: envPort(9104),
  /** Address of the operations port (/healthz, /readyz, /metrics); 0.0.0.0 for a scraper in another container. */
  HEALTH_HOST: envString('127.0.0.1'),
  AUTH_QUOTA_ADDR: envAddresses('127.0.0.1:50051'),
  /** Let webhooks reach private addresses, and plain http reach loopback (local use and tests only). */
  ALLOW_PRIVATE_TARGETS: envBool(false),
  /** Waits before the 2nd, 3rd, … attempt (500ms, 5s, 2m, 1h); its length + 1 attempts in all. */
  WEBHOOK_RETRY_SCHEDULE: envString(DEFAULT_RETRY_SCHEDULE).transform((v, ctx) => {
    try {
      return parseRetrySchedule(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  }),
  /** Each wait is spread by ± this percentage. */
  WEBHOOK_RETRY_JITTER_PERCENT: envInt(10, 0, 100),
  /** One attempt, connection to response, at most this long. */
  WEBHOOK_TIMEOUT_MS: envInt(15_000, 100, 120_000),
  WEBHOOK_MAX_RESPONSE_BYTES: envInt(64 * 1024, 0),
  /** Attempts in flight per receiver (scheme, host, port) in one replica. */
  WEBHOOK_PER_RECEIVER_CONCURRENCY: envInt(4, 1),
  /** Attempts in flight in one replica. */
  WEBHOOK_CONCURRENCY: envInt(16, 1, 1_000),
  /** Public origin of the API (as edge-http's), naming result files of events that do not carry it. */
  EDGE_PUBLIC_URL: envOptional(),
  /** The SMTP server notify emails go through (smtp://user:pass@host:587, smtps://…); none: no emails. */
  SMTP_URL: envOptional(),
  /** The From address of notify emails. */
  SMTP_FROM: envString('Render monitor <monitor@localhost>'),
});

export function parseConfig(env: NodeJS.ProcessEnv = process.env) {
  const c = loadConfig(schema, env);
  return {
    natsUrl: c.NATS_URL,
    natsReplicas: c.NATS_REPLICAS,
    healthPort: c.WEBHOOK_HEALTH_PORT,
    healthHost: c.HEALTH_HOST,
    authQuotaAddress: c.AUTH_QUOTA_ADDR,
    allowPrivateTargets: c.ALLOW_PRIVATE_TARGETS,
    retryScheduleMs: c.WEBHOOK_RETRY_SCHEDULE,
    retryJitter: c.WEBHOOK_RETRY_JITTER_PERCENT / 100,
    timeoutMs: c.WEBHOOK_TIMEOUT_MS,
    maxResponseBytes: c.WEBHOOK_MAX_RESPONSE_BYTES,
    perReceiverConcurrency: c.WEBHOOK_PER_RECEIVER_CONCURRENCY,
    concurrency: c.WEBHOOK_CONCURRENCY,
    smtp: c.SMTP_URL ? { url: c.SMTP_URL, from: c.SMTP_FROM } : undefined,
    filesBaseUrl: c.EDGE_PUBLIC_URL ? `${c.EDGE_PUBLIC_URL.replace(/\/+$/, '')}/v1/files/` : undefined,
  };
}

export type WebhookConfig = ReturnType<typeof parseConfig>;
