import { AppError, isAppError, type ParameterProblem } from './app-error.js';
import { REASON_PHRASES } from './codes.js';

export interface HttpErrorBody {
  statusCode: number;
  error: string;
  message: string;
  code: string;
  details?: ParameterProblem[];
}

export function reasonPhrase(status: number): string {
  return REASON_PHRASES[status] ?? 'Error';
}

/**
 * The JSON body of an error response. Unknown errors become a generic 500 that echoes nothing
 * of the original message.
 */
export function toHttpError(err: unknown): { status: number; body: HttpErrorBody; retryAfterSeconds?: number } {
  const appError: AppError = isAppError(err) ? err : new AppError('internal_error', 'An internal error occurred.');
  const status = appError.httpStatus;
  const body: HttpErrorBody = {
    statusCode: status,
    error: reasonPhrase(status),
    message: appError.message,
    code: appError.code,
  };
  if (appError.details && appError.details.length > 0) body.details = appError.details;
  return appError.retryAfterSeconds === undefined
    ? { status, body }
    : { status, body, retryAfterSeconds: Math.max(1, Math.ceil(appError.retryAfterSeconds)) };
}
