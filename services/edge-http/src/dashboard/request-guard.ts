import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@app/errors';
import type { ActiveSession, DashboardSessions } from './sessions.js';
import { csrfTokenMatches } from './session-token.js';

export const SESSION_COOKIE = 'dashboard_session';
const COOKIE_PATH = '/dashboard';

declare module 'fastify' {
  interface FastifyRequest {
    dashboardSession?: ActiveSession;
  }
}

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
export const isChange = (request: FastifyRequest) => !SAFE_METHODS.has(request.method);

const refused = () => new AppError('csrf_token_invalid', 'This change was refused: it did not come from this dashboard. Reload the page and try again.');

/** An origin in its serialized form (a scheme's default port left out), or undefined when it is none. */
const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/** The origin a browser on this dashboard sends: the public URL's when one is set (behind a TLS proxy), else the request's. */
const ownOrigin = (request: FastifyRequest, publicUrl: string | undefined): string | undefined =>
  originOf(publicUrl ?? `${request.protocol}://${request.host}`);

/**
 * A change must come from this origin (Origin and Sec-Fetch-Site, when the browser sends them): scheme, host
 * and port, so the same host on another scheme (a plain-HTTP page) is refused.
 */
export function assertSameOrigin(request: FastifyRequest, publicUrl?: string): void {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    const sent = originOf(origin);
    if (sent === undefined || sent !== ownOrigin(request, publicUrl)) throw refused();
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw refused();
}

/** The session of the cookie (session_expired otherwise); a change must also carry its CSRF token. */
export function requireSession(sessions: DashboardSessions) {
  return async (request: FastifyRequest) => {
    const session = await sessions.resume(request.cookies[SESSION_COOKIE]);
    if (isChange(request)) {
      const sent = request.headers['x-csrf-token'];
      if (!csrfTokenMatches(session.token, typeof sent === 'string' ? sent : undefined)) throw refused();
    }
    request.dashboardSession = session;
  };
}

/** The session cookie: HttpOnly, Secure, SameSite=Strict, for the dashboard's paths only, 12 hours at most. */
export function setSessionCookie(reply: FastifyReply, session: ActiveSession, nowMs: number): void {
  void reply.setCookie(SESSION_COOKIE, session.token, {
    path: COOKIE_PATH,
    httpOnly: true,
    secure: true,
    sameSite: 'strict',
    maxAge: Math.max(1, Math.round((session.expiresMs - nowMs) / 1000)),
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH, httpOnly: true, secure: true, sameSite: 'strict' });
}
