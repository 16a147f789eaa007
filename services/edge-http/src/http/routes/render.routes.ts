import type { FastifyInstance } from 'fastify';
import { ValidationError } from '@app/errors';
import { OPERATIONS, validateRenderParams, type Operation } from '@app/render-params';
import type { RenderSync } from '../../application/render-sync.js';
import { inputOf } from '../access-key.js';

/** Content-Disposition per the decisions: inline, or attachment with NAME.EXT. */
export function contentDisposition(attachmentName: string | undefined, extension: string): string {
  return attachmentName ? `attachment; filename="${attachmentName}.${extension}"` : 'inline';
}

/** POST and GET /v1/{screenshot,pdf,scrape}. */
export async function renderRoutes(app: FastifyInstance, opts: { renderSync: RenderSync }) {
  for (const operation of OPERATIONS) {
    const handler = async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
      const input = inputOf(request);
      if (!input) throw new ValidationError([{ parameter: 'body', message: 'the body must be a JSON object' }]);
      const { params } = validateRenderParams(operation as Operation, input);
      const outcome = await opts.renderSync({ accountId: request.admitted!.account.accountId, operation, params });
      void reply
        .header('content-type', outcome.contentType)
        .header('content-disposition', contentDisposition(params.attachment_name, outcome.extension))
        .headers(outcome.headers);
      return reply.send(Buffer.from(outcome.body.buffer, outcome.body.byteOffset, outcome.body.byteLength));
    };
    app.post(`/v1/${operation}`, { config: { usage: 'render' } }, handler);
    app.get(`/v1/${operation}`, { config: { usage: 'render' } }, handler);
  }
}
