import type { FastifyInstance } from 'fastify';
import type { GetRenderStatus } from '../../results/index.js';
import { filesBaseUrl } from '../../web/index.js';

/** GET /v1/renders/{id}: the status of an asynchronous render of the calling account. */
export async function rendersRoutes(app: FastifyInstance, opts: { getRenderStatus: GetRenderStatus; publicUrl?: string | undefined }) {
  app.get<{ Params: { id: string } }>('/v1/renders/:id', { config: { usage: 'read' } }, async (request) =>
    opts.getRenderStatus({
      accountId: request.admitted!.account.accountId,
      id: request.params.id,
      filesBaseUrl: filesBaseUrl(request, opts.publicUrl),
    }),
  );
}
