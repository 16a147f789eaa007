import type { RenderParams } from '@app/proto/render';

/** RenderParams with the repeated fields filled in, for tests. */
export function renderParams(fields: Partial<RenderParams> = {}): RenderParams {
  return { hide_selectors: [], block_ressources: [], cookies: [], headers: [], wait_until: [], ...fields };
}
