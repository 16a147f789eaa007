import type { RenderParams } from '@app/proto/render';
import { checkTargetUrl } from '@app/net-guard';
import type { BrowserPool } from '../browser/index.js';
import type { GpuSupport } from './gpu.js';
import type { ScreencastEnv } from './screencast/screencast.js';
import { renderJob } from './render-job.js';
import { openRoute } from './proxy-relay.js';
import { routeFor, type NetworkRouting } from './route.js';
import type { RenderExtras, RenderOperation, RenderOutput } from './types.js';

export interface PoolRendererOptions {
  routing?: NetworkRouting | undefined;
  gpu?: GpuSupport | undefined;
  screencast?: ScreencastEnv | undefined;
}

const DIRECT: NetworkRouting = { allowPrivate: false, ipLocationProxies: {} };

/**
 * renderJob on a pooled page: the pool owns the hard deadline, the context and the browser. A render
 * through a proxy gets a context of its own (a pre-warmed one cannot change its proxy), and a relay
 * when that proxy wants credentials.
 */
export function poolRenderer(pool: Pick<BrowserPool, 'run'>, opts: PoolRendererOptions = {}) {
  const allowPrivate = opts.routing?.allowPrivate ?? false;
  return {
    async render(operation: RenderOperation, params: RenderParams, timeoutMs: number, extras: RenderExtras = {}): Promise<RenderOutput> {
      const started = Date.now();
      const route = await openRoute(await routeFor(params, opts.routing ?? DIRECT));
      try {
        const remainingMs = Math.max(1, timeoutMs - (Date.now() - started));
        const deadline = { timeoutMs, endsAt: started + timeoutMs };
        const steps = {
          secrets: extras.secrets ?? new Map<string, string>(),
          // A step's navigation passes the same address rule as `url` (the egress guard carries its traffic).
          checkAddress: async (url: string, parameter: string) => void (await checkTargetUrl(url, { parameter, allowPrivate: allowPrivate })),
        };
        return await pool.run((page) => renderJob(page, operation, params, deadline, { gpu: opts.gpu, screencast: opts.screencast, steps, session: extras.session }), {
          timeoutMs: remainingMs,
          context: route.context,
        });
      } finally {
        await route.close();
      }
    },
  };
}
