import type { Viewport } from 'puppeteer-core';
import { DEFAULT_VIEWPORT, deviceById } from '@app/render-params';
import type { RenderParams } from '@app/proto/render';
import type { PageSetupStep } from './step.js';

/**
 * The viewport: the device's (viewport_device) or DEFAULT_VIEWPORT, with every explicit viewport_* winning.
 * viewport_landscape turns a portrait device sideways (width and height swapped) unless both are given.
 */
export function viewportFor(params: RenderParams): Viewport {
  const device = deviceById(params.viewport_device)?.viewport;
  let width = device?.width ?? DEFAULT_VIEWPORT.width;
  let height = device?.height ?? DEFAULT_VIEWPORT.height;
  if (params.viewport_landscape !== undefined && device && params.viewport_landscape !== width > height) {
    [width, height] = [height, width];
  }
  return {
    width: params.viewport_width ?? width,
    height: params.viewport_height ?? height,
    deviceScaleFactor: params.device_scale_factor ?? device?.deviceScaleFactor ?? 1,
    isMobile: params.viewport_mobile ?? device?.isMobile ?? false,
    hasTouch: params.viewport_has_touch ?? device?.hasTouch ?? false,
    isLandscape: params.viewport_landscape ?? device?.isLandscape ?? false,
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

/** viewport_device, viewport_*, device_scale_factor. Skipped when the page already matches. */
export const viewportStep: PageSetupStep = (page, params) => {
  const wanted = viewportFor(params);
  return sameViewport(page.viewport(), wanted) ? undefined : page.setViewport(wanted);
};

/** user_agent, else the device's. */
export const userAgentStep: PageSetupStep = (page, params) => {
  const userAgent = params.user_agent || deviceById(params.viewport_device)?.userAgent;
  return userAgent ? page.setUserAgent({ userAgent }) : undefined;
};
