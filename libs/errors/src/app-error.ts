import { ERROR_CODES, type ErrorCode } from './codes.js';

export interface ParameterProblem {
  parameter: string;
  message: string;
  /** host_returned_error: the HTTP status the page's main document answered. */
  returned_status_code?: number | undefined;
  /** content_contains_specified_string / content_missing_specified_string: the string at fault. */
  matched_string?: string | undefined;
}

/** Rate limit state of the account, when the request got that far (X-RateLimit-* headers). */
export interface RateLimitSnapshot {
  limit: number;
  remaining: number;
  resetUnix: number;
}

export interface AppErrorOptions {
  details?: ParameterProblem[];
  retryAfterSeconds?: number;
  rateLimit?: RateLimitSnapshot;
  cause?: unknown;
}

/**
 * An error whose code is stable and whose message is safe to show to the caller.
 * Transports translate it (HTTP status, gRPC status, NATS ack) through the ERROR_CODES table.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ParameterProblem[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  rateLimit: RateLimitSnapshot | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    // A refusal (4xx) is an answer, not a fault: its stack would say nothing, and capturing one is a
    // large share of the cost of refusing a request (a flood of bad keys).
    const stackTraceLimit = Error.stackTraceLimit;
    if (ERROR_CODES[code].http < 500) Error.stackTraceLimit = 0;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.rateLimit = options.rateLimit;
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }

  get grpcStatus(): number {
    return ERROR_CODES[this.code].grpc;
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

export function hasCode(err: unknown, code: ErrorCode): boolean {
  return isAppError(err) && err.code === code;
}

/** One 400 naming every bad parameter. */
export class ValidationError extends AppError {
  constructor(details: ParameterProblem[], message?: string) {
    super('invalid_parameter', message ?? summarize(details), { details });
    this.name = 'ValidationError';
  }
}

function summarize(details: ParameterProblem[]): string {
  if (details.length === 0) return 'The request is invalid.';
  if (details.length === 1) return details[0]!.message;
  return `${details.length} parameters are invalid: ${details.map((d) => d.parameter).join(', ')}.`;
}

export const INVALID_ACCESS_KEY_MESSAGE = 'Invalid access key';

export const errors = {
  accessKeyInvalid: () => new AppError('access_key_invalid', INVALID_ACCESS_KEY_MESSAGE),
  signatureRequired: () =>
    new AppError('signature_required', 'This account requires signed requests: add the signature parameter.'),
  signatureInvalid: () => new AppError('signature_invalid', 'The request signature does not match.'),
  paymentRequired: () =>
    new AppError('payment_required', 'The account has an unpaid invoice; pay it to continue rendering.'),
  planUpgradeRequired: (feature: string) =>
    new AppError('plan_upgrade_required', `${feature} is available on the Scale plan only.`),
  quotaExceeded: (retryAfterSeconds?: number) =>
    new AppError('quota_exceeded', 'The monthly render quota of the account is used up.', { retryAfterSeconds }),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('rate_limited', 'Too many requests this minute; retry after the Retry-After delay.', {
      retryAfterSeconds,
    }),
  concurrencyLimited: (limit: number, retryAfterSeconds: number) =>
    new AppError(
      'concurrency_limited',
      `The account already has ${limit} renders in flight, the most its plan allows; retry after the Retry-After delay.`,
      { retryAfterSeconds },
    ),
  targetNotAllowed: (parameter: string, reason: string) =>
    new AppError('target_not_allowed', `${parameter}: ${reason}`, { details: [{ parameter, message: reason }] }),
  nameNotResolved: (parameter: string, host: string) =>
    new AppError('name_not_resolved', `${parameter}: the host name ${host} could not be resolved.`, {
      details: [{ parameter, message: `the host name ${host} could not be resolved` }],
    }),
  renderTimeout: (seconds: number) =>
    new AppError('render_timeout', `The render did not finish within the timeout of ${seconds} seconds.`),
  rendererUnavailable: (retryAfterSeconds = 5) =>
    new AppError('renderer_unavailable', 'No renderer could start the render (all busy or none running); retry after the Retry-After delay.', {
      retryAfterSeconds,
    }),
  serviceUnavailable: (cause?: unknown, retryAfterSeconds = 2) =>
    new AppError('service_unavailable', 'A backing service is unavailable; retry after the Retry-After delay.', {
      retryAfterSeconds,
      cause,
    }),
  notFound: (what: string) => new AppError('not_found', `${what} was not found.`),
  internal: (cause?: unknown) => new AppError('internal_error', 'An internal error occurred.', { cause }),
};
