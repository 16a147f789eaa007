import type { FastifyInstance } from 'fastify';
import { hasCode } from '@app/errors';
import type { GetRenderStatus, RecentRenders, RenderStatusView } from '../../results/index.js';
import { filesBaseUrl } from '../../web/index.js';
import type { Clock } from '../../application/ports.js';

/** The account's recent async renders, from its bounded index, each as GET /v1/renders/{id} shows it. */
export async function dashboardRendersRoutes(
  app: FastifyInstance,
  opts: { recent: RecentRenders; getRenderStatus: GetRenderStatus; clock: Clock; publicUrl?: string | undefined },
) {
  app.get('/renders', async (request) => {
    const accountId = request.dashboardSession!.account.accountId;
    const base = filesBaseUrl(request, opts.publicUrl);
    const nowSeconds = Math.floor(opts.clock.now().getTime() / 1000);
    const views = await Promise.all(
      (await opts.recent.list(accountId)).map((id) =>
        opts.getRenderStatus({ accountId, id, filesBaseUrl: base }).catch((err: unknown) => {
          if (hasCode(err, 'render_not_found')) return undefined;
          throw err;
        }),
      ),
    );
    const renders = views
      .filter((v): v is RenderStatusView => v !== undefined)
      // A result link is shown only until the file expires.
      .map((v) => ({ ...v, file: v.expires !== null && v.expires > nowSeconds ? v.file : null }));
    return { renders };
  });
}
