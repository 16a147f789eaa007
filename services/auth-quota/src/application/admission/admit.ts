import { leaseEligible } from '@app/admission-client';
import { AppError, errors, isAppError } from '@app/errors';
import type { OpenAccountState } from '../../domain/account/account.js';
import { planAllows, type Plan, type PlanLimits } from '../../domain/account/plans.js';
import {
  grantLease,
  isOpen,
  peekRate,
  reserve,
  returnLease,
  takeRate,
  type LimitsState,
  type RateDecision,
  type ReservationTerms,
  type ReserveDecision,
  type Settler,
} from '../../domain/limits/account-limits.js';
import type { Clock } from '../ports.js';
import type { LimitsAccess } from './limits-access.js';
import type { AdmitInput, Admitted } from './types.js';

const CONSUMES_QUOTA: ReadonlySet<string> = new Set(['render', 'task_create']);
/** An id a caller may choose for its admission (and reservation). */
const CALLER_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** An admission that passed the checks needing no shared state; what follows is decided on the account's limits. */
interface Prepared {
  account: OpenAccountState;
  /** A refusal that comes after the request is counted against the rate limit (billing, plan). */
  refusal?: AppError;
  /** The reservation the request makes, if it makes one. */
  reserve?: ReservationTerms;
  id: string;
  /** Lease units asked for by a request that may have a lease; 0 otherwise. */
  leaseUnits: number;
}

/**
 * Whether a request may take a rate lease: one that is lease-eligible (the terms both services share: a
 * render whose quota is deferred, unsigned), of an account that requires no signature, and not an
 * internal caller's.
 */
const leaseQualifies = (input: AdmitInput, account: OpenAccountState) => leaseEligible(input) && !account.signatureRequired && !input.accountId;

const reserveRefusal = (d: Exclude<ReserveDecision, { kind: 'reserved' }>): AppError =>
  d.kind === 'quota_exceeded' ? errors.quotaExceeded(d.retryAfterSeconds) : errors.concurrencyLimited(d.limit, d.retryAfterSeconds);

/**
 * Admission of authenticated requests: rate limit, billing, plan, quota and renders in flight, with the
 * rate leases edges ask for. The admissions of one account in a batch are decided together in one
 * atomic change of its shared limits.
 */
export function admitting(deps: {
  accountOf: (input: AdmitInput) => Promise<OpenAccountState>;
  openAccount: (accountId: string) => Promise<OpenAccountState>;
  limitsAccess: LimitsAccess;
  clock: Clock;
  limits: Record<Plan, PlanLimits>;
  /** How long a reservation is held when its settler never ends it (its holder's process lost). */
  holdMs: number;
  newId: () => string;
}) {
  const { clock, limits, holdMs } = deps;
  const { change } = deps.limitsAccess;

  const idOf = (chosen: string | undefined) => (chosen && CALLER_ID.test(chosen) ? chosen : deps.newId());

  const prepare = async (input: AdmitInput): Promise<Prepared> => {
    const account = await deps.accountOf(input);
    let refusal: AppError | undefined;
    if (account.billingStatus === 'unpaid') refusal = errors.paymentRequired();
    const missing = input.features.find((f) => !planAllows(account.plan, f));
    if (!refusal && missing) refusal = errors.planUpgradeRequired(missing);
    const reserves = CONSUMES_QUOTA.has(input.usage) && !input.deferQuota;
    const leaseUnits = leaseQualifies(input, account) ? (input.leaseUnits ?? 0) : 0;
    const terms: ReservationTerms = { settler: input.settledBy ?? 'job', holds: input.usage === 'render' ? 'render' : 'quota' };
    return { account, refusal, ...(reserves ? { reserve: terms } : {}), id: idOf(input.admissionId), leaseUnits };
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
    const reserved = reserve(state, p.id, p.reserve, plan, holdMs, nowMs);
    if (reserved.kind !== 'reserved') return refuse(reserveRefusal(reserved));
    return { account: p.account, rateLimit, reservationId: p.id };
  };

  /** Decides admissions in order, each exactly as if it came alone; the answer or refusal of each at its position. */
  const admitMany = async (inputs: AdmitInput[]): Promise<(Admitted | AppError)[]> => {
    const results: (Admitted | AppError)[] = new Array(inputs.length);
    const groups = new Map<string, { index: number; prepared: Prepared }[]>();
    const prepared = await Promise.all(inputs.map((input) => prepare(input).catch((err: unknown) => (isAppError(err) ? err : errors.internal(err)))));
    // Grouped in the order the admissions came, whatever order their accounts were found in.
    prepared.forEach((p, index) => {
      if (p instanceof AppError) {
        results[index] = p;
        return;
      }
      const group = groups.get(p.account.accountId) ?? [];
      group.push({ index, prepared: p });
      groups.set(p.account.accountId, group);
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

  return {
    admitMany,

    async admit(input: AdmitInput): Promise<Admitted> {
      const [result] = await admitMany([input]);
      if (result instanceof AppError) throw result;
      return result!;
    },

    /** One render's unit of quota for an admitted account whose admission deferred it; a retried id reserves once. */
    async reserve(accountId: string, reservationId?: string, settler: Settler = 'job'): Promise<string> {
      const account = await deps.openAccount(accountId);
      const id = idOf(reservationId);
      const nowMs = clock.now().getTime();
      const decision = await change(accountId, (state) => reserve(state, id, { settler, holds: 'render' }, limits[account.plan], holdMs, nowMs));
      if (decision.kind === 'reserved') return id;
      throw reserveRefusal(decision);
    },

    /**
     * Gives back the units of rate lease `leaseId` its holder did not spend (at most what it granted); the
     * units given back. A repeat, an unknown lease or a lease of a window that has ended gives nothing.
     */
    async returnLease(accountId: string, leaseId: string, unused: number): Promise<number> {
      await deps.openAccount(accountId);
      const nowMs = clock.now().getTime();
      return change(accountId, (state) => returnLease(state, leaseId, unused, nowMs));
    },
  };
}
