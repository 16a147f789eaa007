import type { FastifyInstance } from 'fastify';
import { ValidationError } from '@app/errors';
import type { AuthQuota, Clock } from '../../application/ports.js';
import type { AccountConsole } from '../ports.js';
import type { DashboardSessions } from '../sessions.js';
import { setSessionCookie } from '../request-guard.js';
import { sessionView } from './session.routes.js';

const MAX_SIGNED_PAYLOAD = 64 * 1024;

/** Overview (plan, usage by day, rate limit) and Keys (secret on demand, rotation, signatures switch, signing). */
export async function accountRoutes(
  app: FastifyInstance,
  opts: { console: AccountConsole; authQuota: AuthQuota; sessions: DashboardSessions; clock: Clock },
) {
  const { console, authQuota } = opts;
  const accountIdOf = (request: { dashboardSession?: { account: { accountId: string } } }) => request.dashboardSession!.account.accountId;

  app.get('/overview', async (request) => {
    const id = accountIdOf(request);
    const [usage, daily] = await Promise.all([authQuota.usage(id), console.dailyUsage(id)]);
    const { account } = request.dashboardSession!;
    return {
      plan: account.plan,
      billing_status: account.billingStatus,
      usage: usage.hits,
      rate_limit: usage.concurrency,
      renders: usage.renders,
      daily,
    };
  });

  app.post('/keys/secret', async (request) => ({ secret_key: await console.revealSecretKey(accountIdOf(request)) }));

  app.post('/keys/rotate', async (request, reply) => {
    const { keys, session } = await opts.sessions.rotate(request.dashboardSession!);
    setSessionCookie(reply, session, opts.clock.now().getTime());
    return { access_key: keys.accessKey, secret_key: keys.secretKey, session: sessionView(session) };
  });

  app.put('/keys/signatures', async (request) => {
    const required = (request.body as { required?: unknown } | undefined)?.required;
    if (typeof required !== 'boolean') throw new ValidationError([{ parameter: 'required', message: 'required must be true or false' }]);
    await console.setSignatureRequired(accountIdOf(request), required);
    return { signature_required: required };
  });

  /** The signature of a query string or body, so the playground builds signed requests without the secret. */
  app.post('/sign', async (request) => {
    const payload = (request.body as { payload?: unknown } | undefined)?.payload;
    if (typeof payload !== 'string' || payload.length > MAX_SIGNED_PAYLOAD) {
      throw new ValidationError([{ parameter: 'payload', message: `payload must be a string of at most ${MAX_SIGNED_PAYLOAD} characters` }]);
    }
    return { signature: await console.sign(accountIdOf(request), payload) };
  });
}
