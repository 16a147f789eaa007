/** gRPC status codes (same numbers as @grpc/grpc-js `status`), kept here so this package needs no gRPC import. */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatusCode = (typeof GrpcStatus)[keyof typeof GrpcStatus];

/**
 * What a NATS consumer does with a message whose handling failed with this error (read by
 * `dispositionAfter`): `nak` delivers it again later (a passing condition), `ack` records the failure and
 * is done, `term` is done with a message that can never succeed.
 */
export type AckPolicy = 'term' | 'ack' | 'nak';

interface CodeSpec {
  http: number;
  grpc: GrpcStatusCode;
  ack: AckPolicy;
}

/**
 * Every stable error code of the service, with its HTTP status, gRPC status and NATS ack policy.
 * Codes are never renamed; new ones are added here, described in ERROR_DESCRIPTIONS (descriptions.ts),
 * and docs/errors.md is generated from both (a unit test keeps it in step).
 */
export const ERROR_CODES = {
  invalid_parameter: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, ack: 'term' },
  /** The request itself is malformed HTTP (bad URL encoding, unparsable request line or headers). */
  bad_request: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, ack: 'term' },
  target_not_allowed: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, ack: 'term' },
  name_not_resolved: { http: 400, grpc: GrpcStatus.FAILED_PRECONDITION, ack: 'ack' },
  selector_not_found: { http: 400, grpc: GrpcStatus.FAILED_PRECONDITION, ack: 'ack' },
  access_key_invalid: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED, ack: 'term' },
  signature_required: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED, ack: 'term' },
  /** Dashboard sign-in: the access key and secret key do not belong to one account. */
  keys_invalid: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED, ack: 'term' },
  /** Dashboard: no session, or it ended (12 hours, sign-out, key rotation). */
  session_expired: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED, ack: 'term' },
  payment_required: { http: 402, grpc: GrpcStatus.FAILED_PRECONDITION, ack: 'term' },
  plan_upgrade_required: { http: 402, grpc: GrpcStatus.PERMISSION_DENIED, ack: 'term' },
  signature_invalid: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED, ack: 'term' },
  /** Dashboard: a change without the session's CSRF token, or from another site. */
  csrf_token_invalid: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED, ack: 'term' },
  not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND, ack: 'ack' },
  task_not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND, ack: 'ack' },
  render_not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND, ack: 'ack' },
  file_not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND, ack: 'ack' },
  /** A `type` step names an account secret that does not exist (never created, or deleted); DELETE /v1/secrets/{name} of an unknown name. */
  secret_not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND, ack: 'ack' },
  /** GET /v1/tasks/{id}/compare: `from` or `to` is not one of the task's kept runs. */
  run_not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND, ack: 'ack' },
  conflict: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS, ack: 'nak' },
  concurrency_conflict: { http: 409, grpc: GrpcStatus.ABORTED, ack: 'nak' },
  request_timeout: { http: 408, grpc: GrpcStatus.DEADLINE_EXCEEDED, ack: 'nak' },
  payload_too_large: { http: 413, grpc: GrpcStatus.INVALID_ARGUMENT, ack: 'term' },
  unsupported_media_type: { http: 415, grpc: GrpcStatus.INVALID_ARGUMENT, ack: 'term' },
  quota_exceeded: { http: 423, grpc: GrpcStatus.RESOURCE_EXHAUSTED, ack: 'term' },
  rate_limited: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED, ack: 'nak' },
  concurrency_limited: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED, ack: 'nak' },
  header_too_large: { http: 431, grpc: GrpcStatus.INVALID_ARGUMENT, ack: 'term' },
  host_returned_error: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION, ack: 'ack' },
  /** fail_if_content_contains found one of its strings in the page's visible text. */
  content_contains_specified_string: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION, ack: 'ack' },
  /** fail_if_content_missing did not find one of its strings in the page's visible text. */
  content_missing_specified_string: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION, ack: 'ack' },
  render_failed: { http: 500, grpc: GrpcStatus.INTERNAL, ack: 'ack' },
  render_timeout: { http: 500, grpc: GrpcStatus.DEADLINE_EXCEEDED, ack: 'ack' },
  internal_error: { http: 500, grpc: GrpcStatus.INTERNAL, ack: 'nak' },
  renderer_unavailable: { http: 503, grpc: GrpcStatus.UNAVAILABLE, ack: 'nak' },
  service_unavailable: { http: 503, grpc: GrpcStatus.UNAVAILABLE, ack: 'nak' },
} as const satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

/** HTTP reason phrases for the statuses the service answers with. */
export const REASON_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  423: 'Locked',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
