import { randomUUID } from 'node:crypto';
import DataLoader from 'dataloader';
import { AppError, isErrorCode } from '@app/errors';
import { callUnary } from '@app/rpc';
import type {
  AdmissionOutcome,
  AdmitRequestRequest,
  AdmitRequestResponse,
  AuthQuotaServiceClient,
} from '@app/proto/authquota';

/** Admissions of one batch at most (a batch is what arrived in one turn of the event loop). */
const MAX_BATCH = 256;
/** A request carrying a larger signed body is admitted on its own, so a batch stays a small message. */
const MAX_BATCHED_BODY_BYTES = 16 * 1024;

/**
 * Every admission carries its id, so a call whose connection failed under it is repeated on another replica.
 * Its deadline outlasts the election of a new leader for the quota-limits bucket (5 to 7 s on nats-server
 * 2.9 after a NATS node is lost), through which auth-quota holds the admission rather than failing it.
 */
const FAILOVER = { failover: true, timeoutMs: 10_000 } as const;

export type Admit = (request: AdmitRequestRequest) => Promise<AdmitRequestResponse>;

function resultOf(outcome: AdmissionOutcome): AdmitRequestResponse | AppError {
  const result = outcome.result;
  if (result?.$case === 'admitted') return result.value;
  if (result?.$case !== 'refused' || !isErrorCode(result.value.code)) {
    return new AppError('internal_error', 'An internal error occurred.');
  }
  const { code, message, retry_after_seconds, rate_limit } = result.value;
  return new AppError(code, message, {
    retryAfterSeconds: retry_after_seconds,
    rateLimit: rate_limit && { limit: rate_limit.limit, remaining: rate_limit.remaining, resetUnix: rate_limit.reset_unix },
  });
}

/**
 * AdmitRequest as a busy caller should make it: the admissions asked in the same turn of the event loop
 * travel in one AdmitRequests call (auth-quota decides them in order, each exactly as if it came alone,
 * and a refusal comes back as the same AppError AdmitRequest would raise), so the caller pays one round
 * trip per turn instead of one per request. The call's span joins the trace of the batch's first request.
 * Each admission gets an id here (unless the caller chose one): when a replica dies before answering,
 * the call is retried on another one, which recognises the admissions it already made.
 */
export function batchedAdmissions(client: AuthQuotaServiceClient): Admit {
  const batches = new DataLoader<AdmitRequestRequest, AdmitRequestResponse>(
    async (requests) => (await callUnary(client, client.admitRequests, { requests: [...requests] }, FAILOVER)).outcomes.map(resultOf),
    { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );
  return (asked) => {
    const request = asked.admission_id ? asked : { ...asked, admission_id: randomUUID() };
    return request.body.byteLength > MAX_BATCHED_BODY_BYTES ? callUnary(client, client.admitRequest, request, FAILOVER) : batches.load(request);
  };
}
