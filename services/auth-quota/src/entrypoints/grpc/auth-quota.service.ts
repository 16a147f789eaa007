import { AppError, isAppError } from '@app/errors';
import { unaryHandler } from '@app/rpc';
import type { Logger } from '@app/logging';
import type {
  Account as AccountMessage,
  AdmissionOutcome,
  AdmitRequestRequest,
  AdmitRequestResponse,
  AuthQuotaServiceServer,
  RateLease as RateLeaseMessage,
  RateLimitState,
  ReturnRateLeaseRequest,
} from '@app/proto/authquota';
import type { OpenAccountState } from '../../domain/account/account.js';
import { isPlan, type Plan } from '../../domain/account/plans.js';
import type { RateDecision, Settler } from '../../domain/limits/account-limits.js';
import type { AccountAdmin } from '../../application/account-admin.js';
import type { AdmitInput, Admitted, Admission, RateLease, Usage } from '../../application/admission.js';

const USAGES: ReadonlySet<string> = new Set(['render', 'task_create', 'task_other', 'read']);
/** An account id as accounts are named (settlements naming anything else are refused before the store is read). */
const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,100}$/;

const toAccount = (a: OpenAccountState): AccountMessage => ({
  account_id: a.accountId,
  plan: a.plan,
  signature_required: a.signatureRequired,
  billing_status: a.billingStatus,
  name: a.name,
});

const toRate = (r: Pick<RateDecision, 'limit' | 'remaining' | 'resetUnix'>): RateLimitState => ({
  limit: r.limit,
  remaining: r.remaining,
  reset_unix: r.resetUnix,
});

const toLease = (l: RateLease): RateLeaseMessage => ({ lease_id: l.id, units: l.units, valid_ms: l.validMs });

const invalidParameter = (parameter: string, message: string) =>
  new AppError('invalid_parameter', `${parameter} ${message}.`, { details: [{ parameter, message }] });

/** A ReturnRateLease request that names its account and lease and gives back no negative count. */
const validReturn = (req: ReturnRateLeaseRequest): ReturnRateLeaseRequest => {
  if (!req.account_id) throw invalidParameter('account_id', 'must not be empty');
  if (!req.lease_id) throw invalidParameter('lease_id', 'must not be empty');
  if (!(req.unused >= 0)) throw invalidParameter('unused', 'must not be negative');
  return req;
};

const plan = (value: string): Plan => {
  if (!isPlan(value)) {
    throw new AppError('invalid_parameter', `plan must be one of free, basic, growth, scale; got "${value}".`, {
      details: [{ parameter: 'plan', message: 'must be one of free, basic, growth, scale' }],
    });
  }
  return value;
};

/** The AuthQuotaService gRPC server: translates messages to use cases and nothing else. */
export function authQuotaService(deps: {
  admission: Admission;
  admin: AccountAdmin;
  logger: Logger;
  /** Told of every refused admission or reservation, by error code (metrics). */
  onRefused?: (code: string) => void;
}): AuthQuotaServiceServer {
  const { admission, admin, logger } = deps;
  const refused = (err: unknown) => {
    if (isAppError(err) && err.code !== 'internal_error') deps.onRefused?.(err.code);
  };
  const h = <Req, Res>(fn: (req: Req) => Promise<Res> | Res) =>
    unaryHandler<Req, Res>(async (req) => {
      try {
        return await fn(req);
      } catch (err) {
        refused(err);
        throw err;
      }
    }, logger);

  const settlerOf = (settledBy: string | undefined): Settler => {
    if (settledBy === undefined || settledBy === '') return 'job';
    if (settledBy === 'job' || settledBy === 'answer') return settledBy;
    throw new AppError('invalid_parameter', `Unknown settled_by "${settledBy}".`);
  };

  const inputOf = (req: AdmitRequestRequest): AdmitInput => {
    if (!USAGES.has(req.usage)) throw new AppError('invalid_parameter', `Unknown usage "${req.usage}".`);
    return {
      accessKey: req.access_key,
      accountId: req.account_id,
      usage: req.usage as Usage,
      deferQuota: req.defer_quota ?? false,
      features: req.features,
      signature: req.signature,
      signedQuery: req.signed_query,
      bodySignature: req.body_signature,
      body: req.body,
      admissionId: req.admission_id,
      leaseUnits: req.lease_units,
      settledBy: settlerOf(req.settled_by),
    };
  };

  const toResponse = (admitted: Admitted): AdmitRequestResponse => ({
    account: toAccount(admitted.account),
    rate_limit: toRate(admitted.rateLimit),
    reservation_id: admitted.reservationId,
    lease: admitted.lease && toLease(admitted.lease),
  });

  /** One request of a batch: its answer, or its refusal as AdmitRequest's error trailers would say it. */
  const outcomeOf = (result: Admitted | AppError): AdmissionOutcome => {
    if (!isAppError(result)) return { result: { $case: 'admitted', value: toResponse(result) } };
    refused(result);
    if (result.code === 'internal_error') {
      logger.error({ err: result }, 'admission failed');
      return { result: { $case: 'refused', value: { code: 'internal_error', message: 'An internal error occurred.' } } };
    }
    const { retryAfterSeconds, rateLimit } = result;
    return {
      result: {
        $case: 'refused',
        value: {
          code: result.code,
          message: result.message,
          retry_after_seconds: retryAfterSeconds,
          rate_limit: rateLimit && toRate(rateLimit),
        },
      },
    };
  };

  const admitAll = async (requests: AdmitRequestRequest[]): Promise<AdmissionOutcome[]> => {
    const inputs: (AdmitInput | AppError)[] = requests.map((req) => {
      try {
        return inputOf(req);
      } catch (err) {
        return err as AppError;
      }
    });
    const valid = inputs.filter((i): i is AdmitInput => !isAppError(i));
    const decided = await admission.admitMany(valid);
    let next = 0;
    return inputs.map((i) => outcomeOf(isAppError(i) ? i : decided[next++]!));
  };

  return {
    authenticate: h(async (req) => ({ account: toAccount(await admission.authenticate(req.access_key)) })),

    admitRequest: h(async (req) => toResponse(await admission.admit(inputOf(req)))),

    admitRequests: h(async (req) => ({ outcomes: await admitAll(req.requests) })),

    reserveQuota: h(async (req) => ({ reservation_id: await admission.reserve(req.account_id, req.reservation_id, settlerOf(req.settled_by)) })),

    endReservation: h(async (req) => {
      if (!ACCOUNT_ID.test(req.account_id)) throw new AppError('invalid_parameter', 'Unknown account_id.');
      return { result: await admission.settle(req.account_id, req.reservation_id, req.succeeded, 'answer') };
    }),

    getUsage: h(async (req) => {
      const { usage, rateLimit, renders } = await admission.usage(req.account_id);
      return {
        quota: usage.quota,
        used: usage.used,
        remaining: usage.remaining,
        rate_limit: toRate(rateLimit),
        renders_limit: renders.limit,
        renders_in_flight: renders.inFlight,
      };
    }),

    returnRateLease: h(async (req) => {
      const { account_id, lease_id, unused } = validReturn(req);
      await admission.returnLease(account_id, lease_id, unused);
      return {};
    }),

    getSigningKey: h(async (req) => ({ secret_key: await admission.signingKey(req.account_id) })),

    createAccount: h(async (req) => {
      const { account, keys } = await admin.openAccount({
        name: req.name || 'account',
        plan: plan(req.plan),
        accessKey: req.access_key,
        secretKey: req.secret_key,
      });
      return { account: toAccount(account), access_key: keys.accessKey, secret_key: keys.secretKey };
    }),

    rotateKeys: h(async (req) => {
      const keys = await admin.rotateKeys(req.account_id);
      return { access_key: keys.accessKey, secret_key: keys.secretKey };
    }),

    changePlan: h(async (req) => ({ account: toAccount(await admin.changePlan(req.account_id, plan(req.plan))) })),

    setSignatureRequirement: h(async (req) => ({
      account: toAccount(await admin.setSignatureRequirement(req.account_id, req.required)),
    })),

    setBillingStatus: h(async (req) => {
      if (req.billing_status !== 'paid' && req.billing_status !== 'unpaid') {
        throw new AppError('invalid_parameter', 'billing_status must be paid or unpaid.');
      }
      return { account: toAccount(await admin.setBillingStatus(req.account_id, req.billing_status)) };
    }),
  };
}
