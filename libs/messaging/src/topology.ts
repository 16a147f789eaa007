import { nanos } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import type { ConsumerDefinition } from './ensure-consumer.js';

/**
 * Every subject, stream, consumer and bucket of the system, defined once, as data: provision.ts makes
 * them on the servers by iterating these records. Designed for nats-server 2.9 semantics: one filter
 * subject per consumer, no per-message TTL.
 */
export type RenderOrigin = 'sync' | 'async' | 'task' | 'nojob';
export type RenderEventKind = 'started' | 'finished' | 'cache-hit' | 'abandoned' | 'ended';

/** The origin of a job's events: a task run, an async API render, or a render a caller waits for. */
export const renderOriginOf = (job: { origin?: string; async?: boolean | undefined }): RenderOrigin =>
  job.origin === 'task' ? 'task' : job.async ? 'async' : 'sync';

export const SUBJECTS = {
  /** RenderJob, on the RENDER_JOBS work queue. */
  renderJobRequested: 'renderer.job.requested',
  /** Core NATS: an account got a new access key (opened or rotated); edges drop cached refusals. */
  accountKeysChanged: 'accounts.account.keys-changed',
  /**
   * Where a caller that waits for render jobs listens (RenderJob.caller_subject): one subscription of that
   * caller, `renderCallsTo`, takes what renderers ask of it for every job it waits for.
   */
  renderCaller: (callerId: string) => `renderer.call.${callerId}`,
  /** A caller's one subscription: `<caller subject>.<job_id>.start`, `.result` and `.finished` of all its jobs. */
  renderCallsTo: (callerSubject: string) => `${callerSubject}.*.*`,
  /**
   * Core NATS request/reply, never in a stream: a renderer about to start a job that a caller waits for
   * (RenderJob.confirm_start) asks that caller here; "go" starts it, anything else (the caller shed it, or
   * is gone: no responders) drops it unrendered. A job without a caller subject (queued by an earlier
   * edge) is asked on its own subject, `renderer.call.<job_id>.start`.
   */
  renderStart: (job: { job_id: string; caller_subject?: string | undefined }) =>
    job.caller_subject ? `${job.caller_subject}.${job.job_id}.start` : `renderer.call.${job.job_id}.start`,
  /**
   * Core NATS request/reply, never in a stream: a renderer hands a synchronous render's outcome with its
   * result's bytes (RenderHandOver) to the caller waiting for it; "taken" means the caller holds it, and
   * nothing else of the result is stored.
   */
  renderHandOver: (job: { job_id: string; caller_subject?: string | undefined }) =>
    job.caller_subject ? `${job.caller_subject}.${job.job_id}.result` : `renderer.call.${job.job_id}.result`,
  /**
   * Core NATS, never in a stream: the RenderFinished of a job a caller waits for that was not handed over
   * (stored with its result, or a failure), told to that caller besides being stored as a render event, so
   * the caller's one subscription hears it. Only for jobs with a caller subject.
   */
  renderFinishedCall: (job: { job_id: string; caller_subject: string }) => `${job.caller_subject}.${job.job_id}.finished`,
  /**
   * Render events, on the RENDER_EVENTS stream: `render.<origin>.<event>.<id>`. The origin says whose
   * render it is, so each consumer filters what it needs and never decodes another's: `sync` (a caller
   * waits; only auth-quota settles it), `async` (edge status, webhooks, auth-quota), `task` (the
   * scheduler, auth-quota), `nojob` (how a reservation ended, told by its holder rather than by a render job: a synchronous render's answer, a request refused after admission, a task created or a run not dispatched; auth-quota alone).
   * The event says what happened and who says so: `started` and `finished` are the renderer's,
   * `cache-hit` and `abandoned` the edge's own (an async render answered from the cache; an async render
   * its watchdog gave up on), `ended` the edge's or the scheduler's (no job). Every one carries a
   * RenderFinished payload, except `started` (RenderStarted).
   */
  renderEvent: (origin: RenderOrigin, event: RenderEventKind, id: string) => `render.${origin}.${event}.${id}`,
  /** Every event of one origin (a consumer's filter). */
  renderEventsOf: (origin: RenderOrigin) => `render.${origin}.>`,
  renderEventsAll: 'render.>',
  /** The event a render event's subject names (`started`, `finished`, ...). */
  renderEventKindOf: (subject: string): string => subject.split('.', 3)[2] ?? '',
  /**
   * Core NATS, never in a stream: the RenderFinished of a synchronous render whose result its caller took
   * from the renderer's hand-over. The caller holds the outcome and nothing reads it back, so it is told to
   * whoever listens (an operator's `nats sub`, the tests) rather than stored.
   */
  renderTaken: (jobId: string) => `renderer.taken.${jobId}`,
  renderTakenAll: 'renderer.taken.*',
  /** The origin a render event's subject names. */
  renderEventOriginOf: (subject: string): string => subject.split('.', 2)[1] ?? '',
  /**
   * Core NATS request: an account changed (opened, keys, plan, switches). Every auth-quota replica reads
   * the new account events and answers, so the replica that made the change returns once all have it.
   */
  accountDirectoryChanged: 'authquota.directory.changed',
  /** TaskRunStartedEvent relayed from the scheduler's event store (`scheduler.task.run-started`, the one task event relayed). */
  schedulerTaskEvent: (kebabType: string) => `scheduler.task.${kebabType}`,
  /** A task run claimed its occurrence: the scheduler's dispatchers turn it into a render job. */
  taskRunStarted: 'scheduler.task.run-started',
  /** A monitoring task's run changed (TaskChangedEvent): the webhook dispatcher announces it. */
  taskChanged: 'scheduler.task.changed',
  /** A task's next occurrence is near: one scheduler replica prepares its run (message id per run). */
  taskRunPrepare: 'scheduler.run.prepare',
} as const;

const HOUR_MS = 3_600_000;

export const STREAMS = {
  RENDER_JOBS: {
    name: 'RENDER_JOBS',
    subjects: ['renderer.job.>'],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: nanos(120_000),
    max_age: nanos(24 * HOUR_MS),
  },
  /**
   * Render events by origin (SUBJECTS.renderEvent). Limits retention: an event stays for max_age whatever
   * its consumers did, and each durable consumer keeps its own place with explicit acks. Not interest
   * retention: nats-server 2.9 can remove an event of a replicated interest stream before every consumer
   * acknowledged it when a stream or consumer leader changes (a node lost), and a lost outcome is an
   * unsent webhook or an unsettled charge. The day covers the default webhook retry schedule (about 11 h
   * from the first attempt to the last), since a retried delivery is the same message coming back.
   */
  RENDER_EVENTS: {
    name: 'RENDER_EVENTS',
    subjects: ['render.>'],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: nanos(120_000),
    max_age: nanos(24 * HOUR_MS),
  },
  /** Task events from the scheduler's outbox, deduplicated by `<stream>:<version>` message ids. */
  SCHEDULER: {
    name: 'SCHEDULER',
    subjects: ['scheduler.>'],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: nanos(120_000),
    max_age: nanos(7 * 24 * HOUR_MS),
  },
} satisfies Record<string, Partial<StreamConfig> & { name: string }>;

/** Render jobs are shared by every renderer replica through this one durable pull consumer. */
export const RENDERER_JOBS_CONSUMER = {
  stream: STREAMS.RENDER_JOBS.name,
  config: {
    durable_name: 'renderer-jobs',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: SUBJECTS.renderJobRequested,
    // A crashed renderer's job comes back after this; live renders call working() well inside it.
    ack_wait: nanos(10_000),
    max_deliver: 4,
    max_ack_pending: 1_000,
  },
} satisfies ConsumerDefinition;

/** edge-http replicas share this one: async API renders start and finish here (status, cache entry). */
export const EDGE_RENDER_EVENTS_CONSUMER = {
  stream: STREAMS.RENDER_EVENTS.name,
  config: {
    durable_name: 'edge-async-renders',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: SUBJECTS.renderEventsOf('async'),
    ack_wait: nanos(30_000),
    max_ack_pending: 1_000,
  },
} satisfies ConsumerDefinition;

/**
 * webhook-dispatcher replicas share this one. Retry timing lives here: a failed attempt is nak'ed with
 * the next delay of the schedule (the attempts are counted in the render-status bucket); the stream's
 * max_age bounds how long a message can keep coming back.
 */
export const WEBHOOK_DELIVERIES_CONSUMER = {
  stream: STREAMS.RENDER_EVENTS.name,
  config: {
    durable_name: 'webhook-dispatcher-deliveries',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: SUBJECTS.renderEventsOf('async'),
    // An attempt in progress calls working(); a crashed dispatcher's delivery comes back after this.
    ack_wait: nanos(60_000),
    max_ack_pending: 10_000,
  },
} satisfies ConsumerDefinition;

/**
 * The same deliveries for task runs whose query names a webhook_url (a consumer of its own: nats-server
 * 2.9 takes one filter subject per consumer, and a filter on every origin would hand the dispatcher every
 * sync render's events too).
 */
export const WEBHOOK_TASK_RUN_DELIVERIES_CONSUMER = {
  stream: STREAMS.RENDER_EVENTS.name,
  config: { ...WEBHOOK_DELIVERIES_CONSUMER.config, durable_name: 'webhook-dispatcher-task-runs', filter_subject: SUBJECTS.renderEventsOf('task') },
} satisfies ConsumerDefinition;

/** Changes of monitoring tasks, announced as the task.changed webhook by the dispatcher replicas (shared). */
export const WEBHOOK_TASK_CHANGES_CONSUMER = {
  stream: STREAMS.SCHEDULER.name,
  config: {
    durable_name: 'webhook-dispatcher-task-changes',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: SUBJECTS.taskChanged,
    ack_wait: nanos(60_000),
    max_ack_pending: 10_000,
  },
} satisfies ConsumerDefinition;

/** Claimed task runs, shared by every scheduler replica: admission, validation and the render job. */
export const SCHEDULER_RUN_DISPATCH_CONSUMER = {
  stream: STREAMS.SCHEDULER.name,
  config: {
    durable_name: 'scheduler-run-dispatch',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: SUBJECTS.taskRunStarted,
    ack_wait: nanos(30_000),
    max_deliver: 10,
    max_ack_pending: 1_000,
  },
} satisfies ConsumerDefinition;

/**
 * Runs to prepare ahead of their due instant, shared by every scheduler replica: each request goes to one
 * replica, so replicas split a minute's burst between them instead of racing for every run.
 */
export const SCHEDULER_RUN_PREPARE_CONSUMER = {
  stream: STREAMS.SCHEDULER.name,
  config: {
    durable_name: 'scheduler-run-prepare',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: SUBJECTS.taskRunPrepare,
    ack_wait: nanos(30_000),
    max_deliver: 3,
    max_ack_pending: 20_000,
  },
} satisfies ConsumerDefinition;

/** Outcomes of task renders, read by the scheduler to record its task runs (and nothing slower: comparisons have their own). */
export const SCHEDULER_TASK_RUNS_CONSUMER = {
  stream: STREAMS.RENDER_EVENTS.name,
  config: {
    durable_name: 'scheduler-task-runs',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: SUBJECTS.renderEventsOf('task'),
    ack_wait: nanos(30_000),
    max_deliver: 20,
    max_ack_pending: 1_000,
  },
} satisfies ConsumerDefinition;

/**
 * Finished task renders again, for the scheduler's comparisons of monitoring runs (and their confirming
 * renders), apart from recording outcomes: a comparison's worker-thread time never holds an outcome back,
 * and it is delivered, retried and given up on by itself. A comparison in progress keeps its message
 * alive (working()); a scheduler killed while comparing leaves it unacknowledged, and another replica (or
 * the restarted one) takes it after ack_wait. Shared by every scheduler replica. It starts at the stream's
 * beginning when first created, so no comparison pending then is lost: the day of finished task renders the
 * stream holds is read once (runs compared already are passed over).
 */
export const SCHEDULER_RUN_COMPARISONS_CONSUMER = {
  stream: STREAMS.RENDER_EVENTS.name,
  config: {
    durable_name: 'scheduler-run-comparisons',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: SUBJECTS.renderEvent('task', 'finished', '>'),
    ack_wait: nanos(30_000),
    max_deliver: 20,
    max_ack_pending: 1_000,
  },
} satisfies ConsumerDefinition;

/**
 * auth-quota replicas share this one: every render outcome (and every reservation that ended without a
 * job) settles its quota reservation, once, by compare-and-set in the quota-limits bucket. It starts at
 * the stream's end when first created (older outcomes settled reservations of an earlier design), and a
 * settlement is never given up (no max_deliver): an outage of the bucket delays it, nothing more.
 */
export const AUTH_QUOTA_SETTLEMENTS_CONSUMER = {
  stream: STREAMS.RENDER_EVENTS.name,
  config: {
    durable_name: 'auth-quota-settlements',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.New,
    filter_subject: SUBJECTS.renderEventsAll,
    // A killed replica's settlement comes back to another replica after this.
    ack_wait: nanos(5_000),
    max_ack_pending: 1_000,
  },
} satisfies ConsumerDefinition;

const DAY_MS = 24 * HOUR_MS;

/** A bucket: a KV store (small values, compare-and-set) or an object store (files), and its backstop TTL (0: none). */
export interface BucketDefinition {
  name: string;
  kind: 'kv' | 'objects';
  ttlMs: number;
}

export const BUCKETS = {
  /**
   * Render results (never inside a message): transient sync results (removed once streamed), async
   * result files and cache entries. Each object's own expiry is in its metadata, enforced on read and
   * by the edge's sweeper (nats-server 2.9 has no per-message TTL); the bucket TTL is only a backstop
   * above the longest cache_ttl (30 days).
   */
  renderResults: { name: 'render-results', kind: 'objects', ttlMs: 31 * DAY_MS },
  /**
   * Render parameters too large for a message (a big `html`), by job id: written by whoever publishes
   * the job, read and removed by the renderer that runs it. The TTL (the RENDER_JOBS max_age) is the
   * backstop for a job that never runs.
   */
  renderInputs: { name: 'render-inputs', kind: 'objects', ttlMs: DAY_MS },
  /** KV: status of async renders and of webhook deliveries (by render id). */
  renderStatus: { name: 'render-status', kind: 'kv', ttlMs: 31 * DAY_MS },
  /** KV: render cache index, cache key -> result file (expiry in the value, swept by the edge). */
  renderCache: { name: 'render-cache', kind: 'kv', ttlMs: 31 * DAY_MS },
  /**
   * KV: quota state per account (`account.<id>`): the current rate window, committed usage per month,
   * open reservations with their hold. Changed only by compare-and-set on the entry's revision, so any
   * auth-quota replica decides any admission exactly. Kept without TTL (ttlMs 0).
   */
  quotaLimits: { name: 'quota-limits', kind: 'kv', ttlMs: 0 },
  /** KV: account dashboard sessions by hashed token; the TTL is the session lifetime (12 hours). */
  dashboardSessions: { name: 'dashboard-sessions', kind: 'kv', ttlMs: 12 * HOUR_MS },
  /**
   * KV: each renderer's render slots (`renderer.<id>`), written again every few seconds; the fleet's
   * capacity is their sum (fleet-capacity.ts). The TTL removes the key of a renderer that died.
   */
  rendererCapacity: { name: 'renderer-capacity', kind: 'kv', ttlMs: 60_000 },
  /** KV: failed dashboard sign-ins by hashed client address and access key; forgotten an hour after the last. */
  signInFailures: { name: 'dashboard-sign-in-failures', kind: 'kv', ttlMs: HOUR_MS },
} as const satisfies Record<string, BucketDefinition>;

/** Every durable consumer, each once: provisioning makes them all. */
export const CONSUMERS: readonly ConsumerDefinition[] = [
  RENDERER_JOBS_CONSUMER,
  EDGE_RENDER_EVENTS_CONSUMER,
  WEBHOOK_DELIVERIES_CONSUMER,
  WEBHOOK_TASK_RUN_DELIVERIES_CONSUMER,
  WEBHOOK_TASK_CHANGES_CONSUMER,
  SCHEDULER_RUN_DISPATCH_CONSUMER,
  SCHEDULER_RUN_PREPARE_CONSUMER,
  SCHEDULER_TASK_RUNS_CONSUMER,
  SCHEDULER_RUN_COMPARISONS_CONSUMER,
  AUTH_QUOTA_SETTLEMENTS_CONSUMER,
];
