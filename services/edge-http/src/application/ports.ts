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
  /** One unit of quota for an account admitted with `deferQuota`; 423 quota_exceeded when used up. */
  reserve(accountId: string): Promise<string>;
  usage(accountId: string): Promise<Usage>;
}

/**
 * Admission of the API's requests at the edge (the admission/ module): auth-quota behind the edge's own
 * memory of refused keys and its rate leases. `tryNow` admits a request here and now, without a promise,
 * when this edge holds what it needs (a rate lease of its key); undefined sends it to `admit`.
 */
export interface Admitter extends AuthQuota {
  tryNow(request: AdmitRequest): Admitted | undefined;
}

/**
 * How a request holding a quota reservation ended, told by the edge that answered it: a synchronous render
 * (its answer decides whether it is charged, whatever its renderer reports later), a request refused after
 * admission, a task created. auth-quota settles the reservation from this, as it settles render outcomes.
 */
export interface ReservationOutcomes {
  ended(e: { accountId: string; reservationId: string; succeeded: boolean }): Promise<void>;
}

/** How long a synchronous render may take to start and to finish. */
export interface RenderWaitLimits {
  /** No renderer started the job within this: it is shed (RenderNotStarted) and never rendered. */
  startWithinMs: number;
  /** No outcome within this (from submission): RenderWaitTimeout. */
  waitMs: number;
}

/** Publishes a render job and waits for its outcome. */
export interface RenderQueue {
  submitAndWait(job: RenderJob, limits: RenderWaitLimits): Promise<RenderFinished>;
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
