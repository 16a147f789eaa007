import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Admitted, AdmitRequest, Admitter, ReservationOutcomes } from '../../application/ports.js';
import { isTrueParam, planRestrictedFeaturesOf } from '@app/render-params';
import { accessKeyOf, inputOf, rawQueryOf } from '../access-key.js';
import { routeOf } from '../route-of.js';

const EMPTY = new Uint8Array();

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route costs: decides rate limiting and quota reservation. Absent = public route. */
    usage?: AdmitRequest['usage'];
    /** A plan-restricted feature the whole route needs. */
    feature?: string;
  }
  interface FastifyRequest {
    admitted?: Admitted;
    /** Set when admission deferred the quota: reserves it (once) before the request renders. */
    reserveDeferredQuota?: () => Promise<void>;
    /** Set when an accepted async render's job settles the request's reservation (not its answer). */
    settledByJob?: boolean;
    rawBody?: Buffer;
  }
}

/**
 * A render that asks for the cache (synchronous or not) may be answered by a hit, which costs no quota:
 * its admission reserves none, and the route reserves a unit only when it renders (`reserveDeferredQuota`).
 */
function mayBeCacheHit(request: FastifyRequest): boolean {
  const input = inputOf(request);
  return Boolean(input && isTrueParam(input.cache));
}

/** Plan-restricted features a request's parameters ask for. */
function featuresOf(request: FastifyRequest): string[] {
  const features: string[] = [];
  const feature = routeOf(request).config.feature;
  if (feature) features.push(feature);
  const input = inputOf(request);
  if (input) features.push(...planRestrictedFeaturesOf(input));
  return features;
}

interface AdmissionOptions {
  admitter: Admitter;
  reservations: ReservationOutcomes;
  /** The account asking when the edge knows it already (a dashboard session): admitted by it, no key or signature. */
  accountOf?: (request: FastifyRequest) => string;
}

/**
 * Admission for every route that declares a `usage`: authentication, signature, rate limit, plan,
 * quota reservation and renders in flight, through the edge's one admission seam (`Admitter`, the
 * admission/ module): `tryNow` admits a busy key's possible cache hits here, from a rate lease, without a
 * promise; every other request is admitted by `admit`. A render's reservation travels
 * with its job and is settled from the job's outcome; a request that ends in an error (or creates a
 * task) announces its outcome itself, so the reservation is settled the same way (a failed request
 * costs nothing).
 */
export const admissionPlugin = fp(async (app: FastifyInstance, opts: AdmissionOptions) => {
  const { admitter, reservations } = opts;

  const onAdmitted = (request: FastifyRequest, reply: FastifyReply, deferQuota: boolean, admitted: Admitted) => {
    request.admitted = admitted;
    if (deferQuota) {
      request.reserveDeferredQuota = async () => {
        request.reserveDeferredQuota = undefined;
        admitted.reservationId = await admitter.reserve(admitted.account.accountId);
      };
    }
    void reply.headers({
      'x-ratelimit-limit': String(admitted.rateLimit.limit),
      'x-ratelimit-remaining': String(admitted.rateLimit.remaining),
      'x-ratelimit-reset': String(admitted.rateLimit.resetUnix),
    });
  };

  // Callback style: a request this edge admits itself (a rate lease) goes on without a promise.
  app.addHook('preHandler', (request, reply, done) => {
    const usage = routeOf(request).config.usage;
    if (!usage) return done();
    const signature = (request.query as Record<string, unknown> | undefined)?.signature;
    const bodySignature = request.headers['x-signature'];
    const deferQuota = usage === 'render' && mayBeCacheHit(request);
    const known = opts.accountOf?.(request);
    const asked: AdmitRequest = known !== undefined ? { accessKey: '', accountId: known, usage, features: featuresOf(request), signedQuery: '', body: EMPTY } : {
      accessKey: accessKeyOf(request),
      usage,
      deferQuota,
      features: featuresOf(request),
      signature: typeof signature === 'string' ? signature : undefined,
      signedQuery: rawQueryOf(request),
      bodySignature: typeof bodySignature === 'string' ? bodySignature : undefined,
      // The body matters only to a body signature: auth-quota is not sent what it would not read.
      body: typeof bodySignature === 'string' ? (request.rawBody ?? EMPTY) : EMPTY,
    };
    const here = admitter.tryNow(asked);
    if (here) {
      onAdmitted(request, reply, deferQuota, here);
      return done();
    }
    admitter.admit(asked).then(
      (result) => {
        onAdmitted(request, reply, deferQuota, result);
        done();
      },
      (err: Error) => done(err),
    );
  });

  // Callback style: most responses (hits, refusals, reads) hold no reservation and cost no promise here.
  app.addHook('onResponse', (request, reply, done) => {
    const admitted = request.admitted;
    if (!admitted?.reservationId) return done();
    const succeeded = reply.statusCode < 400;
    // An accepted async render's job carries the reservation to its settlement. Every other request
    // settles it from its answer, a synchronous render included: auth-quota leaves a synchronous render's
    // success to the edge that answered, so a caller answered with an error (the wait ran out, the bus
    // was lost) is never charged for a render that finished later.
    if (succeeded && request.settledByJob) return done();
    reservations
      .ended({ accountId: admitted.account.accountId, reservationId: admitted.reservationId, succeeded })
      .catch((err: unknown) => request.log.error({ err }, 'announcing the end of a quota reservation failed'))
      .finally(() => done());
  });
});
