import type { FastifyInstance } from 'fastify';
import { ValidationError, type ParameterProblem } from '@app/errors';
import type { Clock } from '../../application/ports.js';
import type { ActiveSession, DashboardSessions } from '../sessions.js';
import type { SignInThrottle } from '../sign-in-throttle.js';
import { clearSessionCookie, requireSession, setSessionCookie, SESSION_COOKIE } from '../request-guard.js';

/** What the page gets about its session (the access key is shown on the Keys page; it is not a secret). */
export const sessionView = (s: ActiveSession) => ({
  csrf_token: s.csrfToken,
  access_key: s.accessKey,
  expires: Math.floor(s.expiresMs / 1000),
  account: {
    id: s.account.accountId,
    name: s.account.name,
    plan: s.account.plan,
    signature_required: s.account.signatureRequired,
    billing_status: s.account.billingStatus,
    rate_limit_per_minute: s.account.rateLimitPerMinute,
    monthly_quota: s.account.monthlyQuota,
  },
});

function keysOf(body: unknown): { accessKey: string; secretKey: string } {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const problems: ParameterProblem[] = [];
  const field = (name: 'access_key' | 'secret_key', label: string) => {
    const v = b[name];
    if (typeof v !== 'string' || v.trim() === '') problems.push({ parameter: name, message: `Enter your ${label}.` });
    return typeof v === 'string' ? v.trim() : '';
  };
  const keys = { accessKey: field('access_key', 'access key'), secretKey: field('secret_key', 'secret key') };
  if (problems.length > 0) throw new ValidationError(problems);
  return keys;
}

/** Sign-in (both keys, failures throttled by key and client address), the current session, sign-out. */
export async function sessionRoutes(app: FastifyInstance, opts: { sessions: DashboardSessions; throttle: SignInThrottle; clock: Clock }) {
  const { sessions, throttle, clock } = opts;

  app.post('/sign-in', async (request, reply) => {
    const { accessKey, secretKey } = keysOf(request.body);
    await sessions.end(request.cookies[SESSION_COOKIE]);
    const attempt = await throttle.attempt(accessKey, request.ip);
    let session: ActiveSession;
    try {
      session = await sessions.signIn(accessKey, secretKey);
    } catch (err) {
      await attempt.settle(err);
      throw err;
    }
    await attempt.settle('succeeded');
    setSessionCookie(reply, session, clock.now().getTime());
    return sessionView(session);
  });

  app.get('/session', { preHandler: requireSession(sessions) }, async (request) => sessionView(request.dashboardSession!));

  app.post('/sign-out', { preHandler: requireSession(sessions) }, async (request, reply) => {
    await sessions.end(request.dashboardSession!.token);
    clearSessionCookie(reply);
    return reply.status(204).send();
  });
}
