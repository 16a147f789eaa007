import { errors, type AppError } from '@app/errors';
import type { OpenAccountState } from '../domain/account/account.js';
import { planAllows, type Plan, type PlanLimits } from '../domain/account/plans.js';
import { hmacHex, signatureApplies, signaturesMatch, unsignedQuery } from '../domain/account/signature.js';
import type { RateDecision, RateWindows } from '../domain/limits/rate-window.js';
import type { QuotaLedger, QuotaUsage } from '../domain/limits/quota-ledger.js';
import { hashKey, type SecretBox } from '../adapters/key-material.js';
import type { UsageJournal } from '../adapters/usage-journal.js';
import type { AccountDirectory, Clock } from './ports.js';

/** What a request does, which decides what it costs. */
export type Usage = 'render' | 'task_create' | 'task_other' | 'read';
const CONSUMES_QUOTA: ReadonlySet<string> = new Set(['render', 'task_create']);

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
}

export interface Admitted {
  account: OpenAccountState;
  rateLimit: RateDecision;
  reservationId?: string;
}

/** Authentication and admission of one API request: key, signature, rate limit, billing, plan, quota. */
export function admission(deps: {
  directory: AccountDirectory;
  secrets: SecretBox;
  clock: Clock;
  limits: Record<Plan, PlanLimits>;
  rates: RateWindows;
  quota: QuotaLedger;
  journal: UsageJournal;
  newId: () => string;
  onJournalError?: (err: unknown) => void;
}) {
  const { directory, clock, limits, rates, quota } = deps;

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

  const reserveFor = (account: OpenAccountState, nowMs: number): string => {
    const monthlyQuota = limits[account.plan].monthlyQuota;
    const reservation = quota.reserve(deps.newId(), account.accountId, monthlyQuota, nowMs);
    if (reservation) return reservation.id;
    const usage = quota.usage(account.accountId, monthlyQuota, nowMs);
    throw errors.quotaExceeded(Math.max(1, usage.resetUnix - Math.floor(nowMs / 1000)));
  };

  return {
    authenticate,

    admit(input: AdmitInput): Admitted {
      let account: OpenAccountState;
      if (input.accountId) {
        const found = directory.byId(input.accountId);
        if (!found) throw errors.accessKeyInvalid();
        account = found;
      } else {
        account = authenticate(input.accessKey);
        checkSignature(account, input);
      }
      const nowMs = clock.now().getTime();
      const plan = limits[account.plan];
      const rateLimit = rates.take(account.accountId, plan.rateLimitPerMinute, nowMs);
      // Every refusal past this point is an authenticated response: it carries the rate limit state.
      const refuse = (err: AppError): AppError => {
        err.rateLimit = { limit: rateLimit.limit, remaining: rateLimit.remaining, resetUnix: rateLimit.resetUnix };
        return err;
      };
      if (!rateLimit.allowed) throw refuse(errors.rateLimited(rateLimit.retryAfterSeconds));
      if (account.billingStatus === 'unpaid') throw refuse(errors.paymentRequired());
      for (const feature of input.features) {
        if (!planAllows(account.plan, feature)) throw refuse(errors.planUpgradeRequired(feature));
      }
      if (!CONSUMES_QUOTA.has(input.usage) || input.deferQuota) return { account, rateLimit };
      try {
        return { account, rateLimit, reservationId: reserveFor(account, nowMs) };
      } catch (err) {
        throw refuse(err as AppError);
      }
    },

    /** One unit of quota for an admitted account whose admission deferred it. */
    reserve(accountId: string): string {
      const account = directory.byId(accountId);
      if (!account) throw errors.notFound('The account');
      return reserveFor(account, clock.now().getTime());
    },

    signingKey(accountId: string): string {
      const account = directory.byId(accountId);
      if (!account) throw errors.notFound('The account');
      return deps.secrets.open(account.keys.sealedSecretKey);
    },

    /** Counts a reserved unit as used, durably; committing twice counts once. */
    async commit(reservationId: string): Promise<void> {
      const committed = quota.commit(reservationId);
      if (!committed) return;
      await deps.journal.record(committed.accountId, committed.month, committed.id, committed.usedAfter - 1).catch((err: unknown) => {
        deps.onJournalError?.(err);
      });
    },
    release: (reservationId: string) => quota.release(reservationId),

    usage(accountId: string): { usage: QuotaUsage; rateLimit: RateDecision } {
      const account = directory.byId(accountId);
      if (!account) throw errors.notFound('The account');
      const nowMs = clock.now().getTime();
      const plan = limits[account.plan];
      return {
        usage: quota.usage(accountId, plan.monthlyQuota, nowMs),
        rateLimit: rates.peek(accountId, plan.rateLimitPerMinute, nowMs),
      };
    },
  };
}

export type Admission = ReturnType<typeof admission>;
