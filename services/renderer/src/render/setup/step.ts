import type { Page } from 'puppeteer-core';
import type { RenderParams } from '@app/proto/render';

/** What a render needs besides its parameters (decided by the renderer, not the caller). */
export interface RenderEnv {
  /** Credentials of the proxy the render goes through (caller's `proxy` or the `ip_location` one). */
  proxyCredentials?: { username: string; password: string } | undefined;
}

/**
 * One concern of preparing a page before navigation. A step looks at the parameters it owns and
 * does nothing (returns undefined, no CDP call) when they are absent. Steps run concurrently, so
 * each must be independent of the others; order-dependent work belongs in a single step.
 */
export type PageSetupStep = (page: Page, params: RenderParams, env: RenderEnv) => Promise<unknown> | undefined;
