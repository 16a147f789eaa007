import type { FastifyInstance } from 'fastify';

/** Public, unauthenticated liveness/readiness. */
export async function healthRoutes(app: FastifyInstance, opts: { check: () => Promise<Record<string, unknown>> }) {
  app.get('/healthz', async (_request, reply) => {
    try {
      return { status: 'ok', ...(await opts.check()) };
    } catch (err) {
      return reply.status(503).send({ status: 'unhealthy', reason: (err as Error).message });
    }
  });
}
