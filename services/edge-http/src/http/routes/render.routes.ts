import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ValidationError } from '@app/errors';
import { OPERATIONS, type Operation } from '@app/render-params';
import type { RenderParams } from '@app/proto/render';
import type { RenderAsync, RenderCached } from '../../results/index.js';
import type { RenderOutcome, RenderSync } from '../../application/render-sync.js';
import { filesBaseUrl, inputOf, reserveDeferredQuota } from '../../web/index.js';
import { isSyncCached, rawInputOf, type RememberedValidation } from '../render-input.js';
import { setResultHeaders } from '../result-policy.js';

export interface RenderRoutesOptions {
  renderSync: RenderSync;
  /** cache=true (synchronous). */
  renderCached?: RenderCached;
  /** async=true. */
  renderAsync?: RenderAsync;
  /** Public origin for file URLs; default: the origin the request came to. */
  publicUrl?: string | undefined;
  /** The parameters' validation, remembered (shared with the answer of known hits, known-hits.ts). */
  validate: RememberedValidation;
}

const unavailable = () => new AppError('service_unavailable', 'This kind of render is not available on this server.');

/** POST and GET /v1/{screenshot,pdf,scrape}: synchronous, cached, or asynchronous (202). */
export async function renderRoutes(app: FastifyInstance, opts: RenderRoutesOptions) {
  const { validate } = opts;
  const send = (reply: FastifyReply, outcome: RenderOutcome, attachmentName: string | undefined) => {
    void setResultHeaders(reply, outcome, attachmentName);
    return reply.send(Buffer.from(outcome.body.buffer, outcome.body.byteOffset, outcome.body.byteLength));
  };

  for (const operation of OPERATIONS) {
    const render = async (request: FastifyRequest, reply: FastifyReply, params: RenderParams) => {
      const accountId = request.admitted!.account.accountId;
      if (params.async) {
        if (!opts.renderAsync) throw unavailable();
        const accepted = await opts.renderAsync({
          accountId,
          operation,
          params,
          reserve: () => reserveDeferredQuota(request),
          filesBaseUrl: filesBaseUrl(request, opts.publicUrl),
        });
        if (accepted.cache) void reply.header('x-service-cache', accepted.cache);
        return reply.status(202).send({ id: accepted.id, status: accepted.status, created: Math.floor(accepted.createdMs / 1000) });
      }
      if (params.webhook_url) {
        throw new ValidationError([{ parameter: 'webhook_url', message: 'webhook_url needs async=true' }]);
      }
      if (params.cache) {
        if (!opts.renderCached) throw unavailable();
        // Hits count against the rate limit (admission did) but not the quota: a unit is reserved on a miss.
        const outcome = await opts.renderCached({ accountId, operation, params, beforeRender: () => reserveDeferredQuota(request) });
        void reply.header('x-service-cache', outcome.cache);
        return send(reply, outcome, params.attachment_name);
      }
      // The caller's answer ends this render's reservation (the admission hook); one gone abandons the render.
      const reservationId = await reserveDeferredQuota(request);
      const outcome = await opts.renderSync({ accountId, operation, params, reservationId, callerGone: request.callerGone?.signal });
      return send(reply, outcome, params.attachment_name);
    };
    // Not async: a synchronous cache hit this edge holds in memory is answered without a promise.
    const handler = (request: FastifyRequest, reply: FastifyReply) => {
      const input = inputOf(request);
      if (!input) throw new ValidationError([{ parameter: 'body', message: 'the body must be a JSON object' }]);
      const { params } = validate(operation as Operation, rawInputOf(request), input);
      if (isSyncCached(params)) {
        const hit = opts.renderCached?.known({ accountId: request.admitted!.account.accountId, operation, params });
        if (hit) {
          void send(reply.header('x-service-cache', hit.cache), hit, params.attachment_name);
          return undefined;
        }
      }
      return render(request, reply, params);
    };
    app.post(`/v1/${operation}`, { config: { usage: 'render' } }, handler);
    app.get(`/v1/${operation}`, { config: { usage: 'render' } }, handler);
  }
}
