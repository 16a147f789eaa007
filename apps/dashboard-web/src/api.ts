/** The dashboard's JSON API (/dashboard/api), with the session's CSRF token on every change. */

export interface ProblemDetail {
  parameter: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ProblemDetail[] = [],
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export interface SessionView {
  csrf_token: string;
  access_key: string;
  expires: number;
  account: {
    id: string;
    name: string;
    plan: string;
    signature_required: boolean;
    billing_status: string;
    rate_limit_per_minute: number;
    monthly_quota: number;
  };
}

let csrfToken = '';
let onSessionExpired: (err: ApiError) => void = () => undefined;

export const setCsrfToken = (token: string) => void (csrfToken = token);
export const whenSessionExpires = (handler: (err: ApiError) => void) => void (onSessionExpired = handler);

/** An error body of the service ({statusCode, error, message, code, details?}) as an ApiError. */
export async function errorOf(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => ({}))) as { message?: string; code?: string; details?: ProblemDetail[] };
  const retry = Number(res.headers.get('retry-after') ?? '');
  return new ApiError(
    res.status,
    body.code ?? 'error',
    body.message ?? `The request failed (${res.status}).`,
    body.details ?? [],
    Number.isFinite(retry) && retry > 0 ? retry : undefined,
  );
}

export async function api<T>(method: string, path: string, body?: unknown, opts: { quietExpiry?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`/dashboard/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  if (res.ok) return (res.status === 204 ? undefined : await res.json()) as T;
  const err = await errorOf(res);
  if (err.code === 'session_expired' && !opts.quietExpiry) onSessionExpired(err);
  throw err;
}
