import type { Page, ScreenshotOptions } from 'puppeteer-core';
import { ValidationError } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import { toBuffer } from './to-buffer.js';
import type { Artifact } from './types.js';

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif';

export const IMAGE_FORMATS: Readonly<Record<ImageFormat, { contentType: string; extension: string }>> = {
  jpeg: { contentType: 'image/jpeg', extension: 'jpg' },
  png: { contentType: 'image/png', extension: 'png' },
  webp: { contentType: 'image/webp', extension: 'webp' },
  gif: { contentType: 'image/gif', extension: 'gif' },
};

export const DEFAULT_IMAGE_QUALITY = 80;

/** `format` of a screenshot: jpeg by default, jpg is an alias of jpeg. */
export function imageFormat(format: string | undefined): ImageFormat {
  const value = format === undefined || format === '' ? 'jpeg' : format === 'jpg' ? 'jpeg' : format;
  if (value in IMAGE_FORMATS) return value as ImageFormat;
  throw new ValidationError([{ parameter: 'format', message: 'format must be one of jpeg, jpg, png, webp, gif' }]);
}

/** Puppeteer options for the capture. gif is captured as png and converted. */
export function screenshotOptions(params: RenderParams): ScreenshotOptions {
  const format = imageFormat(params.format);
  const type = format === 'gif' ? 'png' : format;
  const options: ScreenshotOptions = { type, fullPage: params.full_page ?? false };
  if (type === 'jpeg' || type === 'webp') options.quality = params.image_quality ?? DEFAULT_IMAGE_QUALITY;
  if (params.omit_background && (type === 'png' || type === 'webp')) options.omitBackground = true;
  return options;
}

export async function takeScreenshot(page: Page, params: RenderParams): Promise<Artifact> {
  const format = imageFormat(params.format);
  let body = toBuffer(await page.screenshot(screenshotOptions(params)));
  if (format === 'gif') body = await pngToGif(body);
  return { body, ...IMAGE_FORMATS[format] };
}

async function pngToGif(png: Buffer): Promise<Buffer> {
  const { default: sharp } = await import('sharp'); // loaded on first use only
  return sharp(png).gif().toBuffer();
}
