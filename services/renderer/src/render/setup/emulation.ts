import type { MediaFeature, Page } from 'puppeteer-core';
import { ValidationError } from '@app/errors';
import type { RenderParams } from '@app/proto/render';
import type { PageSetupStep } from './step.js';

type VisionDeficiency = Parameters<Page['emulateVisionDeficiency']>[0];

const VISION: Readonly<Record<string, VisionDeficiency>> = {
  reduced_contrast: 'reducedContrast',
  blurred_vision: 'blurredVision',
  deuteranopia: 'deuteranopia',
  achromatopsia: 'achromatopsia',
};

/** media_type (screen is the browser's own default, so only print costs a call). */
export const mediaTypeStep: PageSetupStep = (page, params) =>
  params.media_type === 'print' ? page.emulateMediaType('print') : undefined;

export function mediaFeatures(params: RenderParams): MediaFeature[] {
  const features: MediaFeature[] = [];
  if (params.dark_mode) features.push({ name: 'prefers-color-scheme', value: 'dark' });
  if (params.reduced_motion) features.push({ name: 'prefers-reduced-motion', value: 'reduce' });
  return features;
}

/** dark_mode, reduced_motion. */
export const mediaFeaturesStep: PageSetupStep = (page, params) => {
  const features = mediaFeatures(params);
  return features.length > 0 ? page.emulateMediaFeatures(features) : undefined;
};

/** vision_deficiency. */
export const visionStep: PageSetupStep = (page, params) => {
  const deficiency = params.vision_deficiency ? VISION[params.vision_deficiency] : undefined;
  return deficiency ? page.emulateVisionDeficiency(deficiency) : undefined;
};

/** timezone: what Date and Intl in the page see. */
export const timezoneStep: PageSetupStep = (page, params) =>
  params.timezone
    ? page.emulateTimezone(params.timezone).catch(() => {
        throw new ValidationError([{ parameter: 'timezone', message: `timezone ${params.timezone} is not known to the browser` }]);
      })
    : undefined;

/** bypass_csp. */
export const bypassCspStep: PageSetupStep = (page, params) => (params.bypass_csp ? page.setBypassCSP(true) : undefined);

/** js_enabled=false: the page's scripts do not run. */
export const javascriptStep: PageSetupStep = (page, params) =>
  params.js_enabled === false ? page.setJavaScriptEnabled(false) : undefined;
