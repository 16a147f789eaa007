import type { RenderFinished, RenderJob, RenderParams, RenderStarted } from '@app/proto/render';
import type { RenderExtras, RenderOperation, RenderOutput } from '../render/index.js';

/** Carries out one render in a fresh isolated browser context. */
export interface Renderer {
  render(operation: RenderOperation, params: RenderParams, timeoutMs: number, extras?: RenderExtras): Promise<RenderOutput>;
}

/** Keeps render results out of messages; `metadata` is the object's (expiry, owner, content type). */
export interface ResultSink {
  put(name: string, body: Uint8Array, metadata?: Record<string, string>): Promise<void>;
}

/**
 * Hands a synchronous render's outcome with its result's bytes to the caller waiting for it. True: the
 * caller holds them, and nothing of the result is stored. False: refused (the caller is gone or went
 * away), too large for a message, or unanswered; the result is stored as for any other render.
 */
export interface ResultHandOver {
  offer(job: JobCaller, event: RenderFinished, body: Uint8Array): Promise<boolean>;
}

/** The job a caller waits for, and where that caller listens (absent: the job's own subjects). */
export type JobCaller = Pick<RenderJob, 'job_id' | 'caller_subject'>;

/** Announces a finished render (success or failure), and the start of an asynchronous one. */
export interface FinishedPublisher {
  /** Stores the event; `caller`: the caller waiting for the job, also told it at once where it listens. */
  publish(event: RenderFinished, caller?: JobCaller): Promise<void>;
  /** Tells, without storing it, the outcome of a render whose caller took the result handed over. */
  tellTaken(event: RenderFinished): void;
  started(event: RenderStarted): Promise<void>;
}

export interface TargetGuard {
  check(url: string, parameter: string): Promise<void>;
}

export interface Clock {
  now(): Date;
}

/** Parameters too large for a message travel by reference: read before the render, removed once the job is done. */
export interface JobInputs {
  resolve(job: RenderJob): Promise<RenderJob>;
  release(job: RenderJob): Promise<void>;
}

/** What the caller waiting for a job says when a renderer is about to start it (RenderJob.confirm_start). */
export type StartAnswer = 'go' | 'shed' | 'unanswered';

/** Asks the caller of a job whether it still wants it started (it sheds jobs no renderer started in time). */
export interface StartGate {
  /** `queuedUnixMs`: when the caller queued the job (its `created_unix_ms`). */
  confirm(job: JobCaller, queuedUnixMs: number): Promise<StartAnswer>;
}

/** How one job ended here, for the metrics: shed jobs were dropped unrendered, retried ones come back. */
export type JobOutcome = 'succeeded' | 'failed' | 'retried' | 'shed';

/** The values of an account's secrets, for the render that types them (auth-quota holds them sealed). */
export interface SecretSource {
  /** The values of those of `names` the account has; a name it lacks is absent from the map. */
  reveal(accountId: string, names: readonly string[]): Promise<Map<string, string>>;
}

/** The page sessions tasks with keep_session keep between runs (auth-quota holds them sealed, per account and task). */
export interface SessionStore {
  /** The session kept for the task (the renderer's JSON); undefined when none is. */
  read(accountId: string, taskId: string): Promise<string | undefined>;
  keep(accountId: string, taskId: string, session: string): Promise<void>;
}
