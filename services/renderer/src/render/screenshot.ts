/// <reference lib="dom" />
import type { Page, ScreenshotClip, ScreenshotOptions } from 'puppeteer-core';
import { ValidationError } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import { DEFAULT_IMAGE_QUALITY, formatOf } from '@app/render-params';
import { captureElement } from './capture-element.js';
import { captureFullPage } from './capture-full-page.js';
import type { Countdown } from './countdown.js';
import { encodeImage } from './thumbnail.js';
import { toBuffer } from './to-buffer.js';
import type { Artifact } from './types.js';

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif';

export const IMAGE_FORMATS: Readonly<Record<ImageFormat, { contentType: string; extension: string }>> = {
  jpeg: { contentType: 'image/jpeg', extension: 'jpg' },
  png: { contentType: 'image/png', extension: 'png' },
  webp: { contentType: 'image/webp', extension: 'webp' },
  gif: { contentType: 'image/gif', extension: 'gif' },
};

/** The image format of a screenshot (validated parameters: one of IMAGE_FORMATS). */
export const imageFormatOf = (params: RenderParams): ImageFormat => formatOf('screenshot', params) as ImageFormat;

/** clip_* as a rectangle (x and y default to 0), or undefined without a clip. */
export function clipOf(params: RenderParams): ScreenshotClip | undefined {
  if (params.clip_width === undefined || params.clip_height === undefined) return undefined;
  return { x: params.clip_x ?? 0, y: params.clip_y ?? 0, width: params.clip_width, height: params.clip_height };
}

/** A thumbnail is re-encoded from a lossless capture; gif is always converted from png. */
const needsConversion = (params: RenderParams, format: ImageFormat) =>
  format === 'gif' || params.image_width !== undefined || params.image_height !== undefined;

/** Puppeteer options for the capture. */
export function screenshotOptions(params: RenderParams): ScreenshotOptions {
  const format = imageFormatOf(params);
  const type = needsConversion(params, format) || format === 'gif' ? 'png' : format;
  const clip = clipOf(params);
  const options: ScreenshotOptions = {
    type,
    fullPage: !clip && (params.full_page === true || params.full_page_scroll === true),
    captureBeyondViewport: params.capture_beyond_viewport ?? false,
  };
  if (clip) options.clip = clip;
  // PNG is lossless: Chromium's encoder tuned for speed (a faster zlib level, simpler filtering) gives the
  // same pixels for less CPU per capture, in a somewhat larger file. Lossy formats keep their encoder.
  if (type === 'png') options.optimizeForSpeed = true;
  if (type === 'jpeg' || type === 'webp') options.quality = params.image_quality ?? DEFAULT_IMAGE_QUALITY;
  if (params.omit_background && (format === 'png' || format === 'webp')) options.omitBackground = true;
  return options;
}

/** Without capture_beyond_viewport a clip is cut to the viewport: one wholly outside it would be empty. */
async function assertClipVisible(page: Page, clip: ScreenshotClip): Promise<void> {
  const view = await page.evaluate(() => ({
    x: visualViewport?.pageLeft ?? scrollX,
    y: visualViewport?.pageTop ?? scrollY,
    width: visualViewport?.width ?? innerWidth,
    height: visualViewport?.height ?? innerHeight,
  }));
  const overlapX = Math.min(clip.x + clip.width, view.x + view.width) - Math.max(clip.x, view.x);
  const overlapY = Math.min(clip.y + clip.height, view.y + view.height) - Math.max(clip.y, view.y);
  if (overlapX < 1 || overlapY < 1) {
    throw new ValidationError([
      { parameter: 'clip_x', message: 'the clip lies outside the viewport; set capture_beyond_viewport=true to capture it' },
    ]);
  }
}

/** The capture: the `selector` element, a full page up to its cap, or what the options say (viewport, clip). */
async function capture(page: Page, params: RenderParams, options: ScreenshotOptions, clock: Countdown): Promise<Uint8Array> {
  const element = await captureElement(page, params, options);
  if (element) return element;
  if (options.fullPage) return captureFullPage(page, options, params, clock);
  if (options.clip && !options.captureBeyondViewport) await assertClipVisible(page, options.clip);
  return page.screenshot(options);
}

export async function takeScreenshot(page: Page, params: RenderParams, clock: Countdown): Promise<Artifact> {
  const format = imageFormatOf(params);
  const options = screenshotOptions(params);
  let body = toBuffer(await capture(page, params, options, clock));
  if (needsConversion(params, format)) {
    body = await encodeImage(body, format, params.image_quality ?? DEFAULT_IMAGE_QUALITY, {
      width: params.image_width,
      height: params.image_height,
    });
  }
  return { body, ...IMAGE_FORMATS[format] };
}
