import { leaseEligible } from '@app/admission-client';
import { AppError, errors, isAppError } from '@app/errors';
import type { OpenAccountState } from '../domain/account/account.js';
import { planAllows, type Plan, type PlanLimits } from '../domain/account/plans.js';
import { hmacHex, signatureApplies, signaturesMatch, unsignedQuery } from '../domain/account/signature.js';
import {
  grantLease,
  inFlight,
  isOpen,
  peekRate,
  quotaUsage,
  reserve,
  restoreUsage,
  returnLease,
  settle,
  takeRate,
  type LimitsState,
  type QuotaUsage,
  type RateDecision,
  type ReserveDecision,
  type SettleResult,
} from '../domain/limits/account-limits.js';
import { effectiveRendersInFlight } from '../domain/limits/fair-share.js';
import { hashKey, type SecretBox } from '../adapters/key-material.js';
import type { UsageJournal } from '../adapters/usage-journal.js';
import type { AccountDirectory, Clock, LimitsStore } from './ports.js';

/** What a request does, which decides what it costs. */
export type Usage = 'render' | 'task_create' | 'task_other' | 'read';
const CONSUMES_QUOTA: ReadonlySet<string> = new Set(['render', 'task_create']);
/** An id a caller may choose for its admission (and reservation). */
const CALLER_ID = /^[A-Za-z0-9_-]{8,64}$/;

export interface AdmitInput {
  accessKey: string;
  /** Set by trusted internal callers (scheduled runs) instead of a key. */
  accountId?: string;
  usage: Usage;
  /** Admit a render without reserving quota (it may be a cache hit); `reserve` follows if it renders. */
  deferQuota?: boolean;
  features: string[];
  signature?: string;
  signedQuery: string;
  bodySignature?: string;
  body: Uint8Array;
  /** Chosen by the caller so a retry on another replica is recognised; the reservation's id. */
  admissionId?: string;
  /** Units of a rate lease the caller (an edge) asks for, to admit later requests like this one itself. */
  leaseUnits?: number;
}

/**
 * Units of the account's current rate window, counted already, that the holder may spend on later
 * requests like the admitted one for `validMs`; what it does not spend goes back with `returnLease`.
 */
export interface RateLease {
  /** The admission's id. */
  id: string;
  units: number;
  validMs: number;
}

export interface Admitted {
  account: OpenAccountState;
  rateLimit: RateDecision;
  reservationId?: string;
  /** Granted when asked for and the request qualifies; `rateLimit` counts its units as used. */
  lease?: RateLease;
}

export interface AccountUsage {
  usage: QuotaUsage;
  rateLimit: RateDecision;
  renders: { limit: number; inFlight: number };
}

/** An admission that passed the checks needing no shared state; what follows is decided on the account's limits. */
interface Prepared {
  account: OpenAccountState;
  /** A refusal that comes after the request is counted against the rate limit (billing, plan). */
  refusal?: AppError;
  reserve: boolean;
  id: string;
  /** Lease units asked for by a request that may have a lease; 0 otherwise. */
  leaseUnits: number;
}

const unavailable = (cause: unknown) =>
  new AppError('service_unavailable', 'Quota state is unavailable; retry shortly.', { retryAfterSeconds: 2, cause });

/**
 * Whether a request may take a rate lease: one that is lease-eligible (the terms both services share: a
 * render whose quota is deferred, unsigned), of an account that requires no signature, and not an
 * internal caller's.
 */
const leaseQualifies = (input: AdmitInput, account: OpenAccountState) => leaseEligible(input) && !account.signatureRequired && !input.accountId;

const reserveRefusal = (d: Exclude<ReserveDecision, { kind: 'reserved' }>): AppError =>
  d.kind === 'quota_exceeded' ? errors.quotaExceeded(d.retryAfterSeconds) : errors.concurrencyLimited(d.limit, d.retryAfterSeconds);

/**
 * Authentication and admission of API requests: key, signature, rate limit, billing, plan, quota and
 * renders in flight. The account's limits are shared by every replica (LimitsStore); the admissions
 * of one account in a batch are decided together in one atomic change. A reservation is settled from
 * its render's outcome (`settle`), once, whichever replica reads it.
 */
export function admission(deps: {
  directory: AccountDirectory;
  secrets: SecretBox;
  clock: Clock;
  limits: Record<Plan, PlanLimits>;
  store: LimitsStore;
  journal: UsageJournal;
  /** How long a reservation is held when its render never reports back. */
  holdMs: number;
  newId: () => string;
  onJournalError?: (err: unknown) => void;
  /** Render slots of the live renderers (undefined: unknown); caps every account's renders in flight. */
  fleetSlots?: () => number | undefined;
}) {
  const { directory, clock, limits, store, holdMs } = deps;
  /** A plan's limits with its renders in flight capped by the fleet's capacity (a share kept for others). */
  const reservable = (plan: PlanLimits): PlanLimits => ({ ...plan, rendersInFlight: effectiveRendersInFlight(plan.rendersInFlight, deps.fleetSlots?.()) });

  const authenticate = (accessKey: string): OpenAccountState => {
    // A missing or unknown key touches no account: the lookup is by hash and nothing is counted.
    const account = accessKey ? directory.byAccessKeyHash(hashKey(accessKey)) : undefined;
    if (!account) throw errors.accessKeyInvalid();
    return account;
  };

  const checkSignature = (account: OpenAccountState, input: AdmitInput) => {
    if (!account.signatureRequired || !signatureApplies(input.usage)) return;
    if (!input.signature && !input.bodySignature) throw errors.signatureRequired();
    const secret = deps.secrets.open(account.keys.sealedSecretKey);
    const queryOk = input.signature ? signaturesMatch(hmacHex(secret, unsignedQuery(input.signedQuery)), input.signature) : false;
    const bodyOk = input.bodySignature ? signaturesMatch(hmacHex(secret, input.body), input.bodySignature) : false;
    if (!queryOk && !bodyOk) throw errors.signatureInvalid();
  };

  const idOf = (chosen: string | undefined) => (chosen && CALLER_ID.test(chosen) ? chosen : deps.newId());

  const prepare = (input: AdmitInput): Prepared => {
    let account: OpenAccountState;
    if (input.accountId) {
      const found = directory.byId(input.accountId);
      if (!found) throw errors.accessKeyInvalid();
      account = found;
    } else {
      account = authenticate(input.accessKey);
      checkSignature(account, input);
    }
    let refusal: AppError | undefined;
    if (account.billingStatus === 'unpaid') refusal = errors.paymentRequired();
    const missing = input.features.find((f) => !planAllows(account.plan, f));
    if (!refusal && missing) refusal = errors.planUpgradeRequired(missing);
    const reserves = CONSUMES_QUOTA.has(input.usage) && !input.deferQuota;
    const leaseUnits = leaseQualifies(input, account) ? (input.leaseUnits ?? 0) : 0;
    return { account, refusal, reserve: reserves, id: idOf(input.admissionId), leaseUnits };
  };

  /**
   * An admitted request without a reservation, with the lease it asked for when one is granted (its id is
   * the admission's, so a retry answers the same lease); its rate limit then counts the lease's units.
   */
  const withLease = (state: LimitsState, p: Prepared, nowMs: number, rateLimit: RateDecision): Admitted => {
    const limit = limits[p.account.plan].rateLimitPerMinute;
    const lease = grantLease(state, limit, p.id, p.leaseUnits, nowMs);
    if (!lease) return { account: p.account, rateLimit };
    return { account: p.account, rateLimit: peekRate(state, limit, nowMs), lease: { id: p.id, ...lease } };
  };

  const decide = (state: LimitsState, p: Prepared, nowMs: number): Admitted | AppError => {
    const plan = limits[p.account.plan];
    // The same admission retried on another replica (the first answer was lost): answered again, counted once.
    if (p.reserve && isOpen(state, p.id)) {
      return { account: p.account, rateLimit: peekRate(state, plan.rateLimitPerMinute, nowMs), reservationId: p.id };
    }
    const rateLimit = takeRate(state, plan.rateLimitPerMinute, nowMs);
    // Every refusal past this point is an authenticated response: it carries the rate limit state.
    const refuse = (err: AppError): AppError => {
      err.rateLimit = { limit: rateLimit.limit, remaining: rateLimit.remaining, resetUnix: rateLimit.resetUnix };
      return err;
    };
    if (!rateLimit.allowed) return refuse(errors.rateLimited(rateLimit.retryAfterSeconds));
    if (p.refusal) return refuse(p.refusal);
    if (!p.reserve) return p.leaseUnits > 0 ? withLease(state, p, nowMs, rateLimit) : { account: p.account, rateLimit };
    const reserved = reserve(state, p.id, reservable(plan), holdMs, nowMs);
    if (reserved.kind !== 'reserved') return refuse(reserveRefusal(reserved));
    return { account: p.account, rateLimit, reservationId: p.id };
  };

  const change = async <R>(accountId: string, fn: (state: LimitsState) => R): Promise<R> => {
    try {
      return await store.change(accountId, fn);
    } catch (err) {
      throw isAppError(err) ? err : unavailable(err);
    }
  };

  /** Decides admissions in order, each exactly as if it came alone; the answer or refusal of each at its position. */
  const admitMany = async (inputs: AdmitInput[]): Promise<(Admitted | AppError)[]> => {
    const results: (Admitted | AppError)[] = new Array(inputs.length);
    const groups = new Map<string, { index: number; prepared: Prepared }[]>();
    inputs.forEach((input, index) => {
      try {
        const prepared = prepare(input);
        const group = groups.get(prepared.account.accountId) ?? [];
        group.push({ index, prepared });
        groups.set(prepared.account.accountId, group);
      } catch (err) {
        results[index] = isAppError(err) ? err : errors.internal(err);
      }
    });
    await Promise.all(
      [...groups].map(async ([accountId, group]) => {
        try {
          const nowMs = clock.now().getTime();
          const decided = await change(accountId, (state) => group.map(({ prepared }) => decide(state, prepared, nowMs)));
          group.forEach(({ index }, i) => (results[index] = decided[i]!));
        } catch (err) {
          for (const { index } of group) results[index] = isAppError(err) ? err : errors.internal(err);
        }
      }),
    );
    return results;
  };

  const openAccount = (accountId: string) => {
    const account = directory.byId(accountId);
    if (!account) throw errors.notFound('The account');
    return account;
  };

  return {
    authenticate,
    admitMany,

    async admit(input: AdmitInput): Promise<Admitted> {
      const [result] = await admitMany([input]);
      if (result instanceof AppError) throw result;
      return result!;
    },

    /** One unit of quota for an admitted account whose admission deferred it; a retried id reserves once. */
    async reserve(accountId: string, reservationId?: string): Promise<string> {
      const account = openAccount(accountId);
      const id = idOf(reservationId);
      const nowMs = clock.now().getTime();
      const decision = await change(accountId, (state) => reserve(state, id, reservable(limits[account.plan]), holdMs, nowMs));
      if (decision.kind !== 'reserved') throw reserveRefusal(decision);
      return id;
    },

    /**
     * Settles a reservation from its render's outcome: committed (and journaled) on success, released
     * otherwise. Repeating a settlement changes nothing; an unknown reservation is reported to the caller.
     */
    async settle(accountId: string, reservationId: string, succeeded: boolean): Promise<SettleResult> {
      const nowMs = clock.now().getTime();
      const { result, month } = await change(accountId, (state) => {
        const reservedIn = state.open[reservationId]?.month;
        return { result: settle(state, reservationId, succeeded, nowMs), month: reservedIn };
      });
      if (result === 'committed' && month) {
        await deps.journal.record(accountId, month, reservationId).catch((err: unknown) => {
          deps.onJournalError?.(err);
        });
      }
      return result;
    },

    /**
     * Gives back the units of rate lease `leaseId` its holder did not spend (at most what it granted); the
     * units given back. A repeat, an unknown lease or a lease of a window that has ended gives nothing.
     */
    async returnLease(accountId: string, leaseId: string, unused: number): Promise<number> {
      openAccount(accountId);
      const nowMs = clock.now().getTime();
      return change(accountId, (state) => returnLease(state, leaseId, unused, nowMs));
    },

    /** Carries committed usage from the journal into the shared limits where they lack it (at start). */
    async restoreUsage(entries: { accountId: string; month: string; used: number }[]): Promise<void> {
      for (const { accountId, month, used } of entries) {
        const state = await store.read(accountId);
        if ((state.used[month] ?? 0) >= used) continue;
        await change(accountId, (s) => restoreUsage(s, month, used));
      }
    },

    signingKey(accountId: string): string {
      return deps.secrets.open(openAccount(accountId).keys.sealedSecretKey);
    },

    async usage(accountId: string): Promise<AccountUsage> {
      const account = openAccount(accountId);
      const plan = limits[account.plan];
      const nowMs = clock.now().getTime();
      let state: LimitsState;
      try {
        state = await store.read(accountId);
      } catch (err) {
        throw unavailable(err);
      }
      return {
        usage: quotaUsage(state, plan.monthlyQuota, nowMs),
        rateLimit: peekRate(state, plan.rateLimitPerMinute, nowMs),
        renders: { limit: plan.rendersInFlight, inFlight: inFlight(state, nowMs) },
      };
    },
  };
}

export type Admission = ReturnType<typeof admission>;
