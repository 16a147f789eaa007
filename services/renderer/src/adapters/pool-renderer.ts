import type { BrowserPool } from '../browser/index.js';
import { renderJob } from '../render/index.js';
import type { Renderer } from '../application/ports.js';

/** Renders in the warm browser pool: one fresh isolated context per render, closed in all cases. */
export function poolRenderer(pool: BrowserPool): Renderer {
  return {
    render: (operation, params, timeoutMs) =>
      pool.run((page) => renderJob(page, operation, params, { timeoutMs }), { timeoutMs }),
  };
}
