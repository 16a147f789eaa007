import type { RenderParams } from '@app/proto/render';
import type { BrowserPool } from '../browser/browser-pool.js';
import { renderJob } from './render-job.js';
import type { RenderOperation, RenderOutput } from './types.js';

/** renderJob on a pooled page: the pool owns the hard deadline, the context and the browser. */
export function poolRenderer(pool: Pick<BrowserPool, 'run'>) {
  return {
    render(operation: RenderOperation, params: RenderParams, timeoutMs: number): Promise<RenderOutput> {
      return pool.run((page) => renderJob(page, operation, params, { timeoutMs }), { timeoutMs });
    },
  };
}
