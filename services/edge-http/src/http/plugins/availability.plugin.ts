import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { errors } from '@app/errors';

/**
 * While the bus is down nothing behind the API can work: every request of the scope is answered 503
 * service_unavailable with Retry-After at once, instead of waiting for a publish or a read to time out.
 */
export const availabilityPlugin = fp(async (app: FastifyInstance, opts: { available: () => boolean }) => {
  // Callback style: the check costs no promise on every request.
  app.addHook('onRequest', (_request, _reply, done) => {
    if (!opts.available()) return done(errors.serviceUnavailable());
    done();
  });
});
