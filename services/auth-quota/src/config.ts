import { envAddress, envInt, envOptional, envPort, envString, loadConfig, z } from '@app/config';
import { MAX_RENDERS_IN_FLIGHT } from './domain/limits/account-limits.js';
import { DEFAULT_PLAN_LIMITS, PLANS, type Plan, type PlanLimits } from './domain/account/plans.js';

const schema = z.object({
  AUTH_QUOTA_GRPC_ADDR: envAddress('127.0.0.1:50051'),
  AUTH_QUOTA_HEALTH_PORT: envPort(9101),
  /** Address of the operations port (/healthz, /readyz, /metrics); 0.0.0.0 for a scraper in another container. */
  HEALTH_HOST: envString('127.0.0.1'),
  DATA_DIR: envString('.data'),
  /** The bus: quota state (quota-limits bucket), render outcomes to settle, account change announcements. */
  NATS_URL: envString('nats://127.0.0.1:4222'),
  /** Copies of every stream and bucket NATS keeps (1 on one server, 3 on a cluster). */
  NATS_REPLICAS: envInt(1, 1, 5),
  /** SQLite file of the account events (default: DATA_DIR/auth-quota-events.db). */
  AUTH_QUOTA_EVENTS_DB: envOptional(),
  /** When set, account events go to MongoDB instead of SQLite. */
  MONGO_URL: envOptional(),
  MONGO_DB: envString('render_service'),
  /** 32-byte key (base64) sealing secret keys at rest; generated once into DATA_DIR when absent. */
  AUTH_QUOTA_MASTER_KEY: envOptional().refine((v) => v === undefined || Buffer.from(v, 'base64').length === 32, {
    message: 'must be 32 bytes, base64-encoded',
  }),
  /** How long an unsettled quota reservation is held: long enough for queued async renders and task runs; an edge that died mid-render gives its unit back after this. */
  AUTH_QUOTA_RESERVATION_TTL_MS: envInt(900_000, 1_000),
  ...Object.fromEntries(
    PLANS.flatMap((p) => [
      [`PLAN_${p.toUpperCase()}_RATE_LIMIT`, envInt(DEFAULT_PLAN_LIMITS[p].rateLimitPerMinute, 1)],
      [`PLAN_${p.toUpperCase()}_QUOTA`, envInt(DEFAULT_PLAN_LIMITS[p].monthlyQuota, 0)],
      [`PLAN_${p.toUpperCase()}_RENDERS_IN_FLIGHT`, envInt(DEFAULT_PLAN_LIMITS[p].rendersInFlight, 1, MAX_RENDERS_IN_FLIGHT)],
    ]),
  ),
});

export type AuthQuotaConfig = ReturnType<typeof parseConfig>;

export function parseConfig(env: NodeJS.ProcessEnv = process.env) {
  const c = loadConfig(schema, env) as z.output<typeof schema> & Record<string, number>;
  const planLimits = Object.fromEntries(
    PLANS.map((p) => [
      p,
      {
        rateLimitPerMinute: c[`PLAN_${p.toUpperCase()}_RATE_LIMIT`]!,
        monthlyQuota: c[`PLAN_${p.toUpperCase()}_QUOTA`]!,
        rendersInFlight: c[`PLAN_${p.toUpperCase()}_RENDERS_IN_FLIGHT`]!,
      },
    ]),
  ) as Record<Plan, PlanLimits>;
  return {
    grpcAddress: c.AUTH_QUOTA_GRPC_ADDR,
    healthPort: c.AUTH_QUOTA_HEALTH_PORT,
    healthHost: c.HEALTH_HOST,
    dataDir: c.DATA_DIR,
    natsUrl: c.NATS_URL,
    natsReplicas: c.NATS_REPLICAS,
    eventsDb: c.AUTH_QUOTA_EVENTS_DB ?? `${c.DATA_DIR}/auth-quota-events.db`,
    mongo: c.MONGO_URL ? { url: c.MONGO_URL, dbName: c.MONGO_DB } : undefined,
    masterKey: c.AUTH_QUOTA_MASTER_KEY,
    reservationTtlMs: c.AUTH_QUOTA_RESERVATION_TTL_MS,
    planLimits,
  };
}
