import type { RenderFinished, RenderJob } from '@app/proto/render';

export interface AccountInfo {
  accountId: string;
  plan: string;
}

export interface RateLimitInfo {
  limit: number;
  remaining: number;
  resetUnix: number;
}

/**
 * Who ends a quota reservation: `job` (the render job carrying it: auth-quota settles it from the job's
 * outcome) or `answer` (the edge holding it, when it has answered its caller or the caller is gone).
 */
export type Settler = 'answer' | 'job';

export interface AdmitRequest {
  accessKey: string;
  /** The account asking, when the edge knows it already (a dashboard session): no key or signature is checked. */
  accountId?: string;
  usage: 'render' | 'task_create' | 'task_other' | 'read';
  /** A render that may be a cache hit: no quota is reserved at admission (`reserve` when it renders). */
  deferQuota?: boolean;
  features: string[];
  signature?: string;
  signedQuery: string;
  bodySignature?: string;
  body: Uint8Array;
  /** Ask for a rate lease of up to this many units for later requests like this one (see RateLease). */
  leaseUnits?: number;
  /** Who ends the reservation the admission makes (a render, a task created); default `job`. */
  settledBy?: Settler;
}

/**
 * Units of the account's current rate window, counted already, that this edge may spend on later
 * requests with the same key, usage and features for `validMs`; unspent units go back to auth-quota.
 */
export interface RateLease {
  id: string;
  units: number;
  validMs: number;
}

export interface Admitted {
  account: AccountInfo;
  rateLimit: RateLimitInfo;
  reservationId?: string;
  lease?: RateLease;
}

export interface Usage {
  hits: { quota: number; used: number; remaining: number };
  concurrency: { limit: number; remaining: number; reset: number };
  /** Renders the plan allows in flight at once, and how many the account has. */
  renders: { limit: number; in_flight: number };
}

/** auth-quota, as the edge needs it. */
export interface AuthQuota {
  admit(request: AdmitRequest): Promise<Admitted>;
  /** One render's unit of quota for an account admitted with `deferQuota`; 423 quota_exceeded when used up. */
  reserve(accountId: string, settledBy: Settler): Promise<string>;
  /** Ends a reservation the edge settles (`answer`): committed when succeeded, released otherwise. */
  endReservation(e: ReservationEnd): Promise<void>;
  usage(accountId: string): Promise<Usage>;
}

/**
 * Admission of the API's requests at the edge (the admission/ module): auth-quota behind the edge's own
 * memory of refused keys and its rate leases. `tryNow` admits a request here and now, without a promise,
 * when this edge holds what it needs (a rate lease of its key); undefined sends it to `admit`.
 */
export interface Admitter extends AuthQuota {
  tryNow(request: AdmitRequest): Admitted | undefined;
  /**
   * This edge holds a rate lease of the key (for some usage and features): `tryNow` may admit its
   * requests. A check that costs nothing, before work worth doing only for them.
   */
  leasesKey(accessKey: string): boolean;
}

export interface ReservationEnd {
  accountId: string;
  reservationId: string;
  succeeded: boolean;
}

/**
 * How a request holding a quota reservation ended, told by the edge that answered it: a synchronous render
 * answered or whose caller is gone (its answer decides whether it is charged, whatever its renderer reports
 * later), a request refused after admission, a task created. Told to auth-quota at once (EndReservation),
 * or announced on the bus when auth-quota cannot be reached, so the end is never lost.
 */
export interface ReservationOutcomes {
  ended(e: ReservationEnd): Promise<void>;
}

/** How long a synchronous render may take to start and to finish, and when its caller is gone. */
export interface RenderWaitLimits {
  /** No renderer started the job within this: it is shed (RenderNotStarted) and never rendered. */
  startWithinMs: number;
  /** No outcome within this (from submission): RenderWaitTimeout. */
  waitMs: number;
  /**
   * Aborted when the caller is gone: the wait ends at once (RenderAbandoned); a job not started yet is
   * shed (never rendered), a started one's outcome goes to `discard` when it comes.
   */
  signal?: AbortSignal;
  /** The outcome of a render abandoned after it started (its result is to be removed). */
  discard?: (finished: RenderFinished) => void;
}

/** A render's outcome as its caller gets it: the result's bytes too when the renderer handed them over. */
export interface RenderWaitOutcome {
  finished: RenderFinished;
  /** The result itself, handed over by the renderer (nothing stored); absent: read it from the store. */
  body?: Uint8Array;
}

/** Publishes a render job and waits for its outcome. */
export interface RenderQueue {
  submitAndWait(job: RenderJob, limits: RenderWaitLimits): Promise<RenderWaitOutcome>;
}

/** Where finished renders are kept (the render-results object store): the sync path's view of it. */
export interface ResultStore {
  /** The result's bytes; undefined when it is gone. */
  read(objectName: string): Promise<Uint8Array | undefined>;
  remove(objectName: string): Promise<void>;
}

/** SSRF check of a URL the browser will load. */
export interface TargetGuard {
  check(url: string, parameter: string): Promise<void>;
}

export interface Clock {
  now(): Date;
}
