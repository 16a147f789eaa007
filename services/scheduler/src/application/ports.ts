import type { RenderJob } from '@app/proto/render';
import type { Task, TaskEvent } from '../domain/task/task.js';
import type { CompareJob, CompareJobResult, PairJob } from '../comparison/compare-job.js';
import type { Comparison } from '../domain/monitor/monitor.js';

export interface Clock {
  now(): Date;
}

/** The outcome of a command on a task stream. */
export interface TaskChange {
  /** State before the command (what the decision was made on). */
  before: Task;
  after: Task;
  events: TaskEvent[];
  /** Stream version after the command. */
  version: number;
}

/**
 * Task streams in the event store. `change` reads the stream (from its snapshot), lets `decide` choose the
 * events and appends them at the version read; on a concurrency conflict it reads again and re-decides.
 */
export interface TaskStreams {
  load(taskId: number): Promise<{ state: Task; version: number }>;
  change(taskId: number, decide: (state: Task) => TaskEvent[]): Promise<TaskChange>;
}

/** Allocates task ids: positive integers, unique across every scheduler replica. */
export interface TaskIds {
  next(): Promise<number>;
}

export interface Admission {
  account: { accountId: string; plan: string };
  reservationId?: string;
}

/**
 * auth-quota, as the scheduler's runs need it (a trusted internal caller acting for an account). The
 * reservation it hands out travels with the render job and is settled by auth-quota from the outcome.
 */
export interface AuthQuota {
  admitRun(request: { accountId: string; features: string[] }): Promise<Admission>;
}

/** A render job made ready ahead of its publication. */
export interface PreparedJob {
  publish(): Promise<void>;
}

/** The RENDER_JOBS work queue; publishing the same job id twice enqueues it once. */
export interface RenderJobs {
  publish(job: RenderJob): Promise<void>;
  /** Does ahead what publishing the job needs (encoding it, storing large parameters), so that `publish` is only that. */
  prepare(job: RenderJob): Promise<PreparedJob>;
  /** A run's reservation that no job will carry (the run was not dispatched): auth-quota releases it. */
  withoutJob(e: { accountId: string; reservationId: string }): Promise<void>;
}

/** SSRF checks (target_not_allowed, name_not_resolved): pages the browser loads, and webhook targets. */
export interface TargetGuard {
  check(url: string, parameter: string): Promise<void>;
  checkWebhook(url: string, parameter: string): Promise<void>;
}

/** A stored result: its bytes and what it is. */
export interface StoredResult {
  body: Uint8Array;
  extension: string;
  contentType: string;
}

/**
 * The render-results object store as change monitoring needs it: reading runs' results, keeping compared
 * results and diff files as result files (expiring like every result, swept by the edge).
 */
export interface ResultStore {
  read(name: string): Promise<StoredResult | undefined>;
  write(name: string, body: Uint8Array, meta: { accountId: string; contentType: string; extension: string; ttlMs: number }): Promise<void>;
}

/**
 * Runs a monitoring run's comparison away from the thread that serves requests, within a deadline: a job
 * that runs out of time, dies or throws rejects with ComparisonFailed.
 */
export interface Comparer {
  compare(job: CompareJob): Promise<CompareJobResult>;
}

/** Tasks' kept page sessions (keep_session) at auth-quota: forgotten when the task goes or stops keeping one. */
export interface TaskSessions {
  forget(accountId: string, taskId: number): Promise<void>;
}

/** Compares two kept runs' compared files in the same worker threads, within the same deadline. */
export interface PairComparer {
  comparePair(job: PairJob): Promise<Comparison>;
}
