import type { Page, Viewport } from 'puppeteer-core';
import { ValidationError } from '@app/errors';
import type { RenderParams } from '@app/proto/render';

/**
 * One concern of preparing a page before navigation. A step looks at the parameters it owns and
 * does nothing (returns undefined, no CDP call) when they are absent. Steps run concurrently, so
 * each must be independent of the others; order-dependent work belongs in a single step.
 */
export type PageSetupStep = (page: Page, params: RenderParams) => Promise<unknown> | undefined;

export const DEFAULT_VIEWPORT_WIDTH = 1280;
export const DEFAULT_VIEWPORT_HEIGHT = 1080;

export function viewportFor(params: RenderParams): Viewport {
  return {
    width: params.viewport_width ?? DEFAULT_VIEWPORT_WIDTH,
    height: params.viewport_height ?? DEFAULT_VIEWPORT_HEIGHT,
    deviceScaleFactor: params.device_scale_factor ?? 1,
    isMobile: params.viewport_mobile ?? false,
    hasTouch: params.viewport_has_touch ?? false,
    isLandscape: params.viewport_landscape ?? false,
  };
}

function sameViewport(current: Viewport | null, wanted: Viewport): boolean {
  return (
    !!current &&
    current.width === wanted.width &&
    current.height === wanted.height &&
    (current.deviceScaleFactor ?? 1) === wanted.deviceScaleFactor &&
    (current.isMobile ?? false) === wanted.isMobile &&
    (current.hasTouch ?? false) === wanted.hasTouch &&
    (current.isLandscape ?? false) === wanted.isLandscape
  );
}

/** viewport_width, viewport_height, device_scale_factor, viewport_mobile/has_touch/landscape. Skipped when the page already matches. */
export const viewportStep: PageSetupStep = (page, params) => {
  const wanted = viewportFor(params);
  return sameViewport(page.viewport(), wanted) ? undefined : page.setViewport(wanted);
};

/** user_agent */
export const userAgentStep: PageSetupStep = (page, params) =>
  params.user_agent ? page.setUserAgent({ userAgent: params.user_agent }) : undefined;

/** headers: `name:value` pairs separated by semicolons, in one or several entries. */
export const extraHeadersStep: PageSetupStep = (page, params) => {
  if (params.headers.length === 0) return undefined;
  const headers = parseHeaderList(params.headers);
  return Object.keys(headers).length > 0 ? page.setExtraHTTPHeaders(headers) : undefined;
};

/** js_enabled=false: the page's scripts do not run. */
export const javascriptStep: PageSetupStep = (page, params) =>
  params.js_enabled === false ? page.setJavaScriptEnabled(false) : undefined;

export const PAGE_SETUP_STEPS: readonly PageSetupStep[] = [viewportStep, userAgentStep, extraHeadersStep, javascriptStep];

export async function setupPage(
  page: Page,
  params: RenderParams,
  steps: readonly PageSetupStep[] = PAGE_SETUP_STEPS,
): Promise<void> {
  await Promise.all(steps.map((step) => step(page, params)));
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function parseHeaderList(entries: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of entries.flatMap((entry) => entry.split(';'))) {
    if (pair.trim() === '') continue;
    const colon = pair.indexOf(':');
    const name = (colon < 0 ? pair : pair.slice(0, colon)).trim();
    const value = colon < 0 ? '' : pair.slice(colon + 1).trim();
    if (colon < 0 || !HEADER_NAME.test(name) || /[\r\n\0]/.test(value)) {
      throw new ValidationError([
        { parameter: 'headers', message: `"${truncate(pair.trim())}" is not a valid name:value header` },
      ]);
    }
    headers[name] = value;
  }
  return headers;
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
