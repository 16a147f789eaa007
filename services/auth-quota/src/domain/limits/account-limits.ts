import { RATE_LEASE_LIFE_MS } from '@app/admission-client';
/**
 * The limits of one account as one value: the current one-minute rate window, the committed usage of
 * each calendar month (UTC) and the open quota reservations with their hold. Every decision is a pure
 * change of this value; the store applies it by compare-and-set, so decisions made by any replica are
 * exact whatever the concurrency. Open reservations are the account's renders in flight.
 */
/**
 * Who ends a reservation: `job` (the render job carrying it: its outcome settles it) or `answer` (its holder,
 * when it has answered its caller or the caller is gone: a synchronous render, a task created).
 */
export type Settler = 'answer' | 'job';

/** What a reservation holds: a render (one of the account's renders in flight) or only a unit of quota (a task created). */
export type Holds = 'render' | 'quota';

export interface OpenReservation {
  month: string;
  expiresAtMs: number;
  /** Absent in values stored before reservations said who ends them: `job`. */
  settler?: Settler;
  /** Absent: `render`. */
  holds?: Holds;
}

/** How a reservation is asked for: who ends it and what it holds. */
export interface ReservationTerms {
  settler: Settler;
  holds: Holds;
}

/**
 * The current one-minute rate window: the requests counted in it, and the rate leases granted in it (lease
 * id -> units) whose units are part of `count` until they are given back. A new window starts without leases.
 */
export interface RateWindow {
  startMs: number;
  count: number;
  /** Absent in values stored before leases existed, and in a window that granted none. */
  leases?: Record<string, number>;
}

export interface LimitsState {
  window: RateWindow;
  /** Committed renders per month (`YYYY-MM`); the last few months are kept. */
  used: Record<string, number>;
  open: Record<string, OpenReservation>;
  /** Recently settled reservation ids, oldest first: a repeated settlement is recognised as one. */
  settled: string[];
}

export interface AccountLimits {
  rateLimitPerMinute: number;
  monthlyQuota: number;
  /** Renders the account may have in flight at once (open reservations). */
  rendersInFlight: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window ends. */
  resetUnix: number;
  /** Seconds to wait when refused. */
  retryAfterSeconds: number;
}

export interface QuotaUsage {
  quota: number;
  used: number;
  reserved: number;
  remaining: number;
  /** Unix seconds when the month ends. */
  resetUnix: number;
}

export type ReserveDecision =
  | { kind: 'reserved' }
  | { kind: 'quota_exceeded'; retryAfterSeconds: number }
  | { kind: 'concurrency_limited'; limit: number; retryAfterSeconds: number };

/** `ignored`: the end told by one who does not settle the reservation (a job's outcome of a reservation its holder ends). */
export type SettleResult = 'committed' | 'released' | 'repeated' | 'unknown' | 'ignored';

/** Units of the current window granted to a lease's holder, and how long it may spend them. */
export interface LeaseGrant {
  units: number;
  validMs: number;
}

/**
 * The largest renders-in-flight limit a plan may have. An account's open reservations are part of its one
 * limits value, which every admission and settlement rewrites whole by compare-and-set; this bound keeps
 * that value small (tens of kB) and each change fast, whatever the load. Past it the value outgrows the
 * bus's message size and every change of the account fails.
 */
export const MAX_RENDERS_IN_FLIGHT = 1_000;
const WINDOW_MS = 60_000;
const MONTHS_KEPT = 3;
const SETTLED_KEPT = 128;
/** A render in flight takes seconds: a refused caller may try again this soon. */
const CONCURRENCY_RETRY_SECONDS = 2;
/**
 * A lease takes at most this share (1/LEASE_SHARE) of what is left of the window: other edges and replicas
 * always find part of it left, and the last units of a window are admitted one by one.
 */
export const LEASE_SHARE = 4;
/** The most units one lease grants. */
export const MAX_LEASE_UNITS = 10_000;
/** How long a lease's units may be spent (never past the window's end): the lease terms both services share. */
export const LEASE_MS = RATE_LEASE_LIFE_MS;
/**
 * The most leases one window records: leases of a second from a handful of edges make few in a minute,
 * and this bound keeps the account's limits value small whatever the callers do. Past it the window's
 * requests are counted one by one.
 */
export const MAX_LEASES_PER_WINDOW = 1_000;

export const monthOf = (nowMs: number) => new Date(nowMs).toISOString().slice(0, 7);

export function monthEndUnix(nowMs: number): number {
  const d = new Date(nowMs);
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000);
}

export const emptyLimits = (): LimitsState => ({ window: { startMs: 0, count: 0 }, used: {}, open: {}, settled: [] });

const remember = (state: LimitsState, id: string) => {
  state.settled.push(id);
  if (state.settled.length > SETTLED_KEPT) state.settled.splice(0, state.settled.length - SETTLED_KEPT);
};

/** Releases the reservations whose hold is over (their render never reported back). */
export function expireHolds(state: LimitsState, nowMs: number): string[] {
  const expired = Object.entries(state.open)
    .filter(([, r]) => r.expiresAtMs <= nowMs)
    .map(([id]) => id);
  for (const id of expired) {
    delete state.open[id];
    remember(state, id);
  }
  return expired;
}

const currentWindow = (state: LimitsState, nowMs: number) => {
  const startMs = Math.floor(nowMs / WINDOW_MS) * WINDOW_MS;
  if (state.window.startMs !== startMs) state.window = { startMs, count: 0 };
  return state.window;
};

const rateDecision = (state: LimitsState, limit: number, allowed: boolean, nowMs: number): RateDecision => {
  const end = state.window.startMs + WINDOW_MS;
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - state.window.count),
    resetUnix: Math.ceil(end / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil((end - nowMs) / 1000)),
  };
};

/** Counts one request in the current window, or refuses it when `limit` were counted already. */
export function takeRate(state: LimitsState, limit: number, nowMs: number): RateDecision {
  const w = currentWindow(state, nowMs);
  if (w.count >= limit) return rateDecision(state, limit, false, nowMs);
  w.count += 1;
  return rateDecision(state, limit, true, nowMs);
}

export function peekRate(state: LimitsState, limit: number, nowMs: number): RateDecision {
  currentWindow(state, nowMs);
  return rateDecision(state, limit, true, nowMs);
}

/** The units lease `id` was granted in window `w`; own keys only, as an id is any caller's string. */
const leaseIn = (w: RateWindow, id: string): number | undefined =>
  w.leases && Object.hasOwn(w.leases, id) ? w.leases[id] : undefined;

/**
 * Grants lease `leaseId` up to `asked` units of the current window, counted in it at once: at most
 * MAX_LEASE_UNITS and 1/LEASE_SHARE of what is left, so the window never counts more than `limit`.
 * Nothing (undefined) when that is no unit, nothing was asked or the window holds MAX_LEASES_PER_WINDOW
 * leases. Granting an id the window holds already (the same admission retried on another replica)
 * grants nothing more and answers the same units. The units may be spent for LEASE_MS, never past the
 * window's end.
 */
export function grantLease(state: LimitsState, limit: number, leaseId: string, asked: number, nowMs: number): LeaseGrant | undefined {
  const w = currentWindow(state, nowMs);
  const validMs = Math.min(LEASE_MS, w.startMs + WINDOW_MS - nowMs);
  const granted = leaseIn(w, leaseId);
  if (granted !== undefined) return { units: granted, validMs };
  if (!(asked > 0) || Object.keys(w.leases ?? {}).length >= MAX_LEASES_PER_WINDOW) return undefined;
  const units = Math.min(Math.floor(asked), MAX_LEASE_UNITS, Math.floor((limit - w.count) / LEASE_SHARE));
  if (units <= 0) return undefined;
  w.count += units;
  // A computed key defines an own property whatever the id is (even `__proto__`).
  w.leases = { ...w.leases, [leaseId]: units };
  return { units, validMs };
}

/**
 * Gives back the `unused` units of lease `leaseId` (at most what it granted) and forgets the lease; the
 * units given back. Nothing (0) when the current window does not hold it: its window ended (its units
 * ended with it), the id is unknown or it was given back already.
 */
export function returnLease(state: LimitsState, leaseId: string, unused: number, nowMs: number): number {
  const w = currentWindow(state, nowMs);
  const granted = leaseIn(w, leaseId);
  if (granted === undefined) return 0;
  const back = Math.min(granted, Math.max(0, Math.floor(unused) || 0));
  w.count = Math.max(0, w.count - back);
  delete w.leases![leaseId];
  return back;
}

const openIn = (state: LimitsState, month: string) => Object.values(state.open).filter((r) => r.month === month).length;

export function quotaUsage(state: LimitsState, quota: number, nowMs: number): QuotaUsage {
  const month = monthOf(nowMs);
  const used = state.used[month] ?? 0;
  const reserved = Object.values(state.open).filter((r) => r.month === month && r.expiresAtMs > nowMs).length;
  return { quota, used, reserved, remaining: Math.max(0, quota - used - reserved), resetUnix: monthEndUnix(nowMs) };
}

const isRender = (r: OpenReservation) => (r.holds ?? 'render') === 'render';

/** The account's renders in flight: its open reservations that hold a render. */
export const inFlight = (state: LimitsState, nowMs: number) =>
  Object.values(state.open).filter((r) => r.expiresAtMs > nowMs && isRender(r)).length;

/**
 * Holds one unit of the month's quota for `id` until its settler ends it (or `holdMs` passes: a holder
 * lost with its process). The quota is checked first (a used-up month is the lasting answer), then, for a
 * render, the renders in flight; a reservation that holds only quota (a task created) is never refused
 * for renders in flight. Reserving an id that is open already (the same admission retried on another
 * replica) holds nothing more.
 */
export function reserve(state: LimitsState, id: string, terms: ReservationTerms, limits: AccountLimits, holdMs: number, nowMs: number): ReserveDecision {
  expireHolds(state, nowMs);
  if (isOpen(state, id)) return { kind: 'reserved' };
  const month = monthOf(nowMs);
  if ((state.used[month] ?? 0) + openIn(state, month) >= limits.monthlyQuota) {
    return { kind: 'quota_exceeded', retryAfterSeconds: Math.max(1, monthEndUnix(nowMs) - Math.floor(nowMs / 1000)) };
  }
  if (terms.holds === 'render' && inFlight(state, nowMs) >= limits.rendersInFlight) {
    return { kind: 'concurrency_limited', limit: limits.rendersInFlight, retryAfterSeconds: CONCURRENCY_RETRY_SECONDS };
  }
  const value: OpenReservation = { month, expiresAtMs: nowMs + holdMs, settler: terms.settler, holds: terms.holds };
  // Defined, not assigned: an own property whatever the id is (even `__proto__`).
  Object.defineProperty(state.open, id, { value, enumerable: true, writable: true, configurable: true });
  return { kind: 'reserved' };
}

/** True when `id` is an open reservation: its admission happened already (a retry). */
export const isOpen = (state: LimitsState, id: string) => Object.hasOwn(state.open, id);

/**
 * Ends reservation `id` as told by `by`, when `by` is its settler: a success becomes usage of the month it
 * was reserved in, anything else gives the unit back. A job's outcome never ends a reservation its holder
 * ends (`ignored`); a holder ends a job's reservation only to release it (no job carries it), never to
 * commit it. A repeated settlement changes nothing.
 */
export function settle(state: LimitsState, id: string, succeeded: boolean, by: Settler, nowMs: number): SettleResult {
  expireHolds(state, nowMs);
  const r = Object.hasOwn(state.open, id) ? state.open[id] : undefined;
  if (!r) return state.settled.includes(id) ? 'repeated' : 'unknown';
  const settler = r.settler ?? 'job';
  if (by !== settler && (by === 'job' || succeeded)) return 'ignored';
  delete state.open[id];
  remember(state, id);
  if (!succeeded) return 'released';
  state.used[r.month] = (state.used[r.month] ?? 0) + 1;
  const months = Object.keys(state.used).sort();
  for (const old of months.slice(0, Math.max(0, months.length - MONTHS_KEPT))) delete state.used[old];
  return 'committed';
}

/** Committed usage of a month carried over from an older record (at start, from the usage journal). */
export function restoreUsage(state: LimitsState, month: string, used: number): boolean {
  if ((state.used[month] ?? 0) >= used) return false;
  state.used[month] = used;
  return true;
}
