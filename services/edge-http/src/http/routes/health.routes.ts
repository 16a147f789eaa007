import type { FastifyInstance } from 'fastify';
import { evaluateReadiness, type ReadinessCheck } from '@app/runtime';

/**
 * Public, unauthenticated probes for a load balancer: /healthz (alive: 200 while the process answers)
 * and /readyz (ready: 200 only when every dependency answers, else 503 naming the ones that do not).
 */
export async function healthRoutes(app: FastifyInstance, opts: { details: () => Promise<Record<string, unknown>>; ready?: Record<string, ReadinessCheck> }) {
  app.get('/healthz', async () => ({ status: 'ok', ...(await opts.details()) }));
  app.get('/readyz', async (_request, reply) => {
    const report = await evaluateReadiness(opts.ready ?? {});
    return reply.status(report.ready ? 200 : 503).send({ status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
  });
}
