import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { AppError, isAppError, isErrorCode, type ParameterProblem } from '@app/errors';

const CODE_KEY = 'error-code';
const RETRY_KEY = 'retry-after';
const DETAILS_KEY = 'error-details';
const RATE_KEY = 'rate-limit';

type Logger = { error: (obj: object, msg?: string) => void };

/** An AppError as a gRPC status with its stable code in the trailers; anything else as a bare INTERNAL. */
export function toServiceError(err: unknown, logger?: Logger): Partial<ServiceError> {
  const metadata = new Metadata();
  if (!isAppError(err) || err.code === 'internal_error') {
    logger?.error({ err }, 'rpc failed');
    metadata.set(CODE_KEY, 'internal_error');
    return { code: status.INTERNAL, details: 'An internal error occurred.', metadata };
  }
  metadata.set(CODE_KEY, err.code);
  if (err.retryAfterSeconds !== undefined) metadata.set(RETRY_KEY, String(err.retryAfterSeconds));
  if (err.details) metadata.set(DETAILS_KEY, JSON.stringify(err.details));
  if (err.rateLimit) metadata.set(RATE_KEY, JSON.stringify(err.rateLimit));
  return { code: err.grpcStatus, details: err.message, metadata };
}

/**
 * UNAVAILABLE raised by gRPC itself (no connection, or the connection dropped under the call), not an
 * error a server answered with: the call may be tried again on another replica.
 */
export function isTransportFailure(err: unknown): boolean {
  const e = err as Partial<ServiceError>;
  return e?.code === status.UNAVAILABLE && (e.metadata?.get(CODE_KEY).length ?? 0) === 0;
}

/** Rebuilds the AppError a server raised; transport failures become service_unavailable. */
export function fromServiceError(err: unknown): AppError {
  const e = err as Partial<ServiceError>;
  const md = e.metadata;
  const code = md?.get(CODE_KEY)[0];
  if (typeof code === 'string' && isErrorCode(code)) {
    const retry = md?.get(RETRY_KEY)[0];
    const detailsRaw = md?.get(DETAILS_KEY)[0];
    let details: ParameterProblem[] | undefined;
    if (typeof detailsRaw === 'string') {
      try {
        details = JSON.parse(detailsRaw) as ParameterProblem[];
      } catch {
        details = undefined;
      }
    }
    const rate = md?.get(RATE_KEY)[0];
    return new AppError(code, e.details ?? 'An error occurred.', {
      details,
      retryAfterSeconds: typeof retry === 'string' ? Number(retry) : undefined,
      rateLimit: typeof rate === 'string' ? (JSON.parse(rate) as AppError['rateLimit']) : undefined,
      cause: err,
    });
  }
  if (e.code === status.UNAVAILABLE || e.code === status.DEADLINE_EXCEEDED) {
    return new AppError('service_unavailable', 'A backing service is unavailable; retry shortly.', {
      retryAfterSeconds: 2,
      cause: err,
    });
  }
  return new AppError('internal_error', 'An internal error occurred.', { cause: err });
}
