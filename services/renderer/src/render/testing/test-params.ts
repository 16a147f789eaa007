import type { RenderParams } from '@app/proto/render';

/** RenderParams with the repeated fields filled in, for tests. */
export function renderParams(fields: Partial<RenderParams> = {}): RenderParams {
  return {
    hide_selectors: [],
    block_ressources: [],
    cookies: [],
    headers: [],
    wait_until: [],
    fail_on_status: [],
    fail_if_content_contains: [],
    fail_if_content_missing: [],
    ...fields,
  };
}
