import { envAddress, envAddresses, envBool, envInt, envOptional, envPort, envString, loadConfig, z } from '@app/config';

const schema = z.object({
  NATS_URL: envString('nats://127.0.0.1:4222'),
  /** Copies of every stream and bucket NATS keeps (1 on one server, 3 on a cluster). */
  NATS_REPLICAS: envInt(1, 1, 5),
  SCHEDULER_GRPC_ADDR: envAddress('127.0.0.1:50052'),
  SCHEDULER_HEALTH_PORT: envPort(9103),
  /** Address of the operations port (/healthz, /readyz, /metrics); 0.0.0.0 for a scraper in another container. */
  HEALTH_HOST: envString('127.0.0.1'),
  DATA_DIR: envString('.data'),
  /** SQLite file of the task events (default: DATA_DIR/scheduler-events.db); every replica on a machine shares it. */
  SCHEDULER_EVENTS_DB: envOptional(),
  /** When set, task events go to MongoDB (a replica set) instead of SQLite. */
  MONGO_URL: envOptional(),
  /** The scheduler's own database: its outbox relays every event of its store. */
  SCHEDULER_MONGO_DB: envString('render_scheduler'),
  AUTH_QUOTA_ADDR: envAddresses('127.0.0.1:50051'),
  /** Let task pages reach private and loopback addresses (local use and tests only). */
  ALLOW_PRIVATE_TARGETS: envBool(false),
  /** How often due occurrences are looked for; 0 turns the timer off (tests tick by hand). */
  SCHEDULER_TICK_MS: envInt(250, 0, 10_000),
  /** How often the outbox is relayed to NATS (it is also flushed right after a run starts). */
  SCHEDULER_OUTBOX_INTERVAL_MS: envInt(200, 10, 60_000),
  /** Run outcomes handled at once per replica. */
  SCHEDULER_CONCURRENCY: envInt(4, 1, 64),
  /**
   * Started runs dispatched at once per replica: each mostly waits (admission, store, broker), and a minute
   * can start thousands of runs together (bounded by the dispatch consumer's max_ack_pending).
   */
  SCHEDULER_DISPATCH_CONCURRENCY: envInt(256, 1, 1_000),
  /**
   * How long before its due instant a run is prepared (checked, admitted, claimed), so that the instant
   * itself only publishes its job; 0 prepares nothing (every run is claimed and dispatched when due).
   */
  SCHEDULER_PREPARE_LEAD_MS: envInt(40_000, 0, 300_000),
  /**
   * How long after its due instant a prepared run not recorded started is taken as abandoned by the replica
   * that prepared it (killed): any replica's tick then publishes its job again under the same job id (the
   * render-jobs queue drops a repeat within its 2-minute duplicate window) or cancels it so it runs late.
   */
  SCHEDULER_PREPARED_RUN_GRACE_MS: envInt(15_000, 1_000, 45_000),
  /** Worker threads that compare monitoring runs (text extraction, ignore_text, diffs), off the thread that serves requests. */
  SCHEDULER_COMPARE_THREADS: envInt(2, 1, 16),
  /** The SMTP server email notifications go through (the webhook dispatcher sends them); without it, monitor.notify takes no email. */
  SMTP_URL: envOptional(),
  /** A comparison is given up after this long in its worker (the worker is stopped); it is tried again, then recorded as failed. */
  SCHEDULER_COMPARE_TIMEOUT_MS: envInt(20_000, 20, 600_000),
  /** Runs kept per task in the run history. */
  SCHEDULER_RUN_HISTORY_LIMIT: envInt(1_000, 1, 100_000),
  /** A task stream gets a snapshot every this many events (a task running every minute writes ~4,300 a day). */
  SCHEDULER_SNAPSHOT_EVERY: envInt(100, 1),
});

export function parseConfig(env: NodeJS.ProcessEnv = process.env) {
  const c = loadConfig(schema, env);
  return {
    natsUrl: c.NATS_URL,
    natsReplicas: c.NATS_REPLICAS,
    grpcAddress: c.SCHEDULER_GRPC_ADDR,
    healthPort: c.SCHEDULER_HEALTH_PORT,
    healthHost: c.HEALTH_HOST,
    dataDir: c.DATA_DIR,
    eventsDb: c.SCHEDULER_EVENTS_DB ?? `${c.DATA_DIR}/scheduler-events.db`,
    mongo: c.MONGO_URL ? { url: c.MONGO_URL, dbName: c.SCHEDULER_MONGO_DB } : undefined,
    authQuotaAddress: c.AUTH_QUOTA_ADDR,
    allowPrivateTargets: c.ALLOW_PRIVATE_TARGETS,
    tickMs: c.SCHEDULER_TICK_MS,
    outboxIntervalMs: c.SCHEDULER_OUTBOX_INTERVAL_MS,
    concurrency: c.SCHEDULER_CONCURRENCY,
    dispatchConcurrency: c.SCHEDULER_DISPATCH_CONCURRENCY,
    prepareLeadMs: c.SCHEDULER_PREPARE_LEAD_MS,
    preparedRunGraceMs: c.SCHEDULER_PREPARED_RUN_GRACE_MS,
    compareThreads: c.SCHEDULER_COMPARE_THREADS,
    emailNotifications: Boolean(c.SMTP_URL),
    compareTimeoutMs: c.SCHEDULER_COMPARE_TIMEOUT_MS,
    runHistoryLimit: c.SCHEDULER_RUN_HISTORY_LIMIT,
    snapshotEvery: c.SCHEDULER_SNAPSHOT_EVERY,
  };
}

export type SchedulerConfig = ReturnType<typeof parseConfig>;
