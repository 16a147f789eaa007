import type { Page } from 'puppeteer-core';
import type { RenderParams } from '@app/proto/render';
import { consentStep } from './setup/consent.js';
import { cookiesStep } from './setup/cookies.js';
import { dialogsAndPopupsStep } from './setup/dialogs-popups.js';
import { bypassCspStep, javascriptStep, mediaFeaturesStep, mediaTypeStep, timezoneStep, visionStep } from './setup/emulation.js';
import { geolocationStep } from './setup/geolocation.js';
import { authenticationStep, extraHeadersStep } from './setup/headers.js';
import { requestsStep } from './setup/requests.js';
import type { PageSetupStep } from './setup/step.js';
import type { RenderOperation } from './types.js';
import { userAgentStep, viewportStep } from './setup/viewport.js';
import { webrtcStep } from './setup/webrtc.js';

export type { PageSetupStep } from './setup/step.js';
export { parseHeaderList } from './setup/headers.js';
export { viewportFor } from './setup/viewport.js';

/** Everything done to a fresh page before it navigates, one small applier per concern. */
export const PAGE_SETUP_STEPS: readonly PageSetupStep[] = [
  dialogsAndPopupsStep,
  viewportStep,
  userAgentStep,
  extraHeadersStep,
  javascriptStep,
  mediaTypeStep,
  mediaFeaturesStep,
  visionStep,
  timezoneStep,
  geolocationStep,
  cookiesStep,
  bypassCspStep,
  authenticationStep,
  consentStep,
  requestsStep,
  webrtcStep,
];

export async function setupPage(
  page: Page,
  params: RenderParams,
  operation: RenderOperation,
  steps: readonly PageSetupStep[] = PAGE_SETUP_STEPS,
): Promise<void> {
  await Promise.all(steps.map((step) => step(page, params, operation)));
}
