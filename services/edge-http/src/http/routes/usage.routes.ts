import type { FastifyInstance } from 'fastify';
import type { AuthQuota } from '../../application/ports.js';

/** GET /v1/usage: the account's monthly quota, its per-minute limit and its renders in flight. */
export async function usageRoutes(app: FastifyInstance, opts: { authQuota: AuthQuota }) {
  app.get('/v1/usage', { config: { usage: 'read' } }, async (request) => {
    const usage = await opts.authQuota.usage(request.admitted!.account.accountId);
    // The rate limit state after this request was counted, as in the X-RateLimit-* headers.
    const rate = request.admitted!.rateLimit;
    return {
      hits: usage.hits,
      concurrency: { limit: rate.limit, remaining: rate.remaining, reset: rate.resetUnix },
      renders: usage.renders,
    };
  });
}
