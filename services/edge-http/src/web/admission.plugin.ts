import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Admitted, AdmitRequest, Admitter, ReservationOutcomes, Settler } from '../application/ports.js';
import { errors } from '@app/errors';
import { admitRequestOf, featuresOf, rateLimitHeaders, settlerOf } from './admit-request.js';
import { handedOver } from './handed-over.js';
import { routeOf } from './route-of.js';
import type { HeldReservation } from './reservation.js';
import { CallerGone } from './caller-gone.js';

const EMPTY = new Uint8Array();
/** The longest an answer waits for its reservation's end to be told to auth-quota. */
const END_WAIT_MS = 500;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route costs: decides rate limiting and quota reservation. Absent = public route. */
    usage?: AdmitRequest['usage'];
    /** A plan-restricted feature the whole route needs. */
    feature?: string;
  }
  interface FastifyRequest {
    admitted?: Admitted;
    /** The request's quota reservation while it holds one; unset once ended. */
    reservation?: HeldReservation;
    /** Set when admission deferred the quota: reserves it (once) before the request renders. */
    reserveDeferredQuota?: () => Promise<void>;
    /** A render's: its caller went away before it was answered (its timeout, a closed connection). */
    callerGone?: CallerGone;
    rawBody?: Buffer;
  }
}

interface AdmissionOptions {
  admitter: Admitter;
  reservations: ReservationOutcomes;
  /** The account asking when the edge knows it already (a dashboard session): admitted by it, no key or signature. */
  accountOf?: (request: FastifyRequest) => string;
  /**
   * Calls its listener each time the bus is judged down; returns the unsubscribe. An admission in flight
   * then is answered 503 at once (auth-quota's limits live on the bus: it cannot answer soon), and the
   * reservation it may still make is released when it comes.
   */
  onBusDown?: (listener: () => void) => () => void;
}

/**
 * Admission for every route that declares a `usage`: authentication, signature, rate limit, plan,
 * quota reservation and renders in flight, through the edge's one admission seam (`Admitter`, the
 * admission/ module): `tryNow` admits a busy key's possible cache hits here, from a rate lease, without a
 * promise; every other request is admitted by `admit`. The reservation is a value (`request.reservation`)
 * that says who ends it: an async render's job (its outcome settles it), or this hook, which ends every
 * other reservation when the request is answered (charged on success) or its caller is gone (released at
 * once, and the render is abandoned: `callerGone`). A request refused after its admission releases even
 * a job's reservation, since no job carries it.
 */
export const admissionPlugin = fp(async (app: FastifyInstance, opts: AdmissionOptions) => {
  const { admitter, reservations } = opts;

  /** Ends the request's reservation once, unless its job ends it. */
  const endReservation = (request: FastifyRequest, succeeded: boolean): Promise<void> | undefined => {
    const held = request.reservation;
    if (!held) return undefined;
    request.reservation = undefined;
    if (held.settler === 'job' && succeeded) return undefined;
    return reservations
      .ended({ accountId: request.admitted!.account.accountId, reservationId: held.id, succeeded })
      .catch((err: unknown) => request.log.error({ err }, 'ending a quota reservation failed'));
  };

  /** A render whose caller goes away before its answer: abandoned, and its reservation released at once. */
  const watchCaller = (request: FastifyRequest, reply: FastifyReply) => {
    const gone = new CallerGone();
    request.callerGone = gone;
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished) return;
      gone.leave();
      void endReservation(request, false);
    });
  };

  const onAdmitted = (request: FastifyRequest, reply: FastifyReply, deferQuota: boolean, settler: Settler, admitted: Admitted) => {
    request.admitted = admitted;
    if (admitted.reservationId) request.reservation = { id: admitted.reservationId, settler };
    if (routeOf(request).config.usage === 'render') watchCaller(request, reply);
    if (deferQuota) {
      request.reserveDeferredQuota = async () => {
        request.reserveDeferredQuota = undefined;
        request.reservation = { id: await admitter.reserve(admitted.account.accountId, settler), settler };
        if (request.callerGone?.gone) void endReservation(request, false);
      };
    }
    void reply.headers(rateLimitHeaders(admitted.rateLimit));
  };

  // Callback style: a request this edge admits itself (a rate lease) goes on without a promise.
  app.addHook('preHandler', (request, reply, done) => {
    const route = routeOf(request).config;
    const usage = route.usage;
    if (!usage) return done();
    const known = opts.accountOf?.(request);
    const asked: AdmitRequest =
      known !== undefined
        ? { accessKey: '', accountId: known, usage, features: featuresOf(request, route.feature), signedQuery: '', body: EMPTY, settledBy: settlerOf(request, usage) }
        : admitRequestOf(request, usage, route.feature);
    const deferQuota = asked.deferQuota ?? false;
    const settledBy = asked.settledBy ?? 'answer';
    // Admitted already beneath Fastify (a possible cache hit this edge did not hold after all).
    const here = handedOver(request.raw)?.admitted ?? admitter.tryNow(asked);
    if (here) {
      onAdmitted(request, reply, deferQuota, settledBy, here);
      return done();
    }
    let answered = false;
    const stopWatching = opts.onBusDown?.(() => {
      if (answered) return;
      answered = true;
      done(errors.serviceUnavailable());
    });
    admitter.admit(asked).then(
      (result) => {
        stopWatching?.();
        if (!answered) {
          answered = true;
          onAdmitted(request, reply, deferQuota, settledBy, result);
          return done();
        }
        // Admitted after its request was answered 503: what it reserved is released.
        if (result.reservationId) {
          const end = { accountId: result.account.accountId, reservationId: result.reservationId, succeeded: false };
          reservations.ended(end).catch((err: unknown) => request.log.error({ err }, 'ending a quota reservation failed'));
        }
      },
      (err: Error) => {
        stopWatching?.();
        if (answered) return;
        answered = true;
        done(err);
      },
    );
  });

  // Ended before the answer leaves: a caller that sends its next render as soon as it has this one's
  // answer finds this render ended. The answer waits for that END_WAIT_MS at most (auth-quota slow or its
  // bus hung): the end goes on behind it. Callback style: most answers hold no reservation and cost no promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    const ending = endReservation(request, reply.statusCode < 400);
    if (!ending) return done(null, payload);
    let sent = false;
    const send = () => {
      if (sent) return;
      sent = true;
      clearTimeout(bound);
      done(null, payload);
    };
    const bound = setTimeout(send, END_WAIT_MS);
    void ending.finally(send);
  });

  // An answer that never reached onSend (its sending failed) still ends its reservation.
  app.addHook('onResponse', (request, reply, done) => {
    const ending = endReservation(request, reply.statusCode < 400);
    if (!ending) return done();
    void ending.finally(() => done());
  });
});
