import { afterAll, beforeAll } from 'vitest';
import type { RenderParams } from '@app/proto/render';
import { renderBudgetMs, validateRenderParams, type Operation } from '@app/render-params';
import { BrowserPool, type BrowserPoolOptions } from '../../browser/index.js';
import { poolRenderer, type PoolRendererOptions } from '../pool-renderer.js';
import type { RenderOutput } from '../types.js';

/**
 * One real pool (Chromium) per test file. `render` validates the parameters exactly as the edge does
 * (so defaults apply) and renders them; `url` may be given relative to a base.
 */
export function useRenderer(options: () => { pool?: Partial<BrowserPoolOptions>; renderer?: PoolRendererOptions } = () => ({})) {
  let pool: BrowserPool;
  let renderer: ReturnType<typeof poolRenderer>;
  beforeAll(async () => {
    const o = options();
    pool = new BrowserPool({ browsers: 1, concurrency: 2, maxQueue: 16, restartAfter: 0, warmContexts: 2, ...o.pool });
    await pool.start();
    renderer = poolRenderer(pool, { routing: { allowPrivate: true, ipLocationProxies: {} }, ...o.renderer });
  });
  afterAll(() => pool?.stop());

  return {
    pool: () => pool,
    params: (operation: Operation, input: Record<string, unknown>): RenderParams => validateRenderParams(operation, input).params,
    render(operation: Operation, input: Record<string, unknown>, timeoutMs?: number): Promise<RenderOutput> {
      const { params } = validateRenderParams(operation, input);
      return renderer.render(operation, params, timeoutMs ?? renderBudgetMs(operation, params));
    },
  };
}
