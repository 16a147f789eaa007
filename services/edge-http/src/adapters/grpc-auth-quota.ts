import { credentials } from '@grpc/grpc-js';
import DataLoader from 'dataloader';
import { AppError, isErrorCode } from '@app/errors';
import { callUnary } from '@app/rpc';
import {
  AuthQuotaServiceClient,
  type AdmissionOutcome,
  type AdmitRequestRequest,
  type AdmitRequestResponse,
} from '@app/proto/authquota';
import type { AuthQuota } from '../application/ports.js';

/** Admissions of one batch at most (a batch is what arrived in one turn of the event loop). */
const MAX_BATCH = 256;
/** A request carrying a larger signed body is admitted on its own, so a batch stays a small message. */
const MAX_BATCHED_BODY_BYTES = 16 * 1024;

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
 * auth-quota over gRPC; errors come back as AppErrors with their stable codes. The admissions that
 * arrive in the same turn of the event loop travel in one AdmitRequests call (auth-quota decides them
 * in order, each exactly as if it came alone), so a busy edge pays one round trip per turn instead of
 * one per request. The call's span joins the trace of the batch's first request.
 */
export function grpcAuthQuota(address: string): AuthQuota & { close(): void } {
  const client = new AuthQuotaServiceClient(address, credentials.createInsecure());
  const admissions = new DataLoader<AdmitRequestRequest, AdmitRequestResponse>(
    async (requests) => (await callUnary(client, client.admitRequests, { requests: [...requests] })).outcomes.map(resultOf),
    { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );
  return {
    async admit(req) {
      const message: AdmitRequestRequest = {
        access_key: req.accessKey,
        usage: req.usage,
        defer_quota: req.deferQuota,
        features: req.features,
        signature: req.signature,
        signed_query: req.signedQuery,
        body_signature: req.bodySignature,
        body: Buffer.from(req.body),
      };
      const res =
        message.body.byteLength > MAX_BATCHED_BODY_BYTES
          ? await callUnary(client, client.admitRequest, message)
          : await admissions.load(message);
      return {
        account: { accountId: res.account?.account_id ?? '', plan: res.account?.plan ?? '' },
        rateLimit: {
          limit: res.rate_limit?.limit ?? 0,
          remaining: res.rate_limit?.remaining ?? 0,
          resetUnix: res.rate_limit?.reset_unix ?? 0,
        },
        reservationId: res.reservation_id,
      };
    },
    async reserve(accountId) {
      return (await callUnary(client, client.reserveQuota, { account_id: accountId })).reservation_id;
    },
    async commit(reservationId) {
      await callUnary(client, client.commitQuota, { reservation_id: reservationId });
    },
    async release(reservationId) {
      await callUnary(client, client.releaseQuota, { reservation_id: reservationId });
    },
    async usage(accountId) {
      const res = await callUnary(client, client.getUsage, { account_id: accountId });
      return {
        hits: { quota: res.quota, used: res.used, remaining: res.remaining },
        concurrency: {
          limit: res.rate_limit?.limit ?? 0,
          remaining: res.rate_limit?.remaining ?? 0,
          reset: res.rate_limit?.reset_unix ?? 0,
        },
      };
    },
    close: () => client.close(),
  };
}
