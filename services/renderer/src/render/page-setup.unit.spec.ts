import type { Page, Viewport } from 'puppeteer-core';
import { describe, expect, it, vi } from 'vitest';
import { PAGE_SETUP_STEPS, parseHeaderList, setupPage, viewportFor } from './page-setup.js';
import { DEVICES } from '@app/render-params';
import { requestsStep } from './setup/requests.js';
import { consentStep } from './setup/consent.js';
import { authenticationStep } from './setup/headers.js';
import { dialogsAndPopupsStep } from './setup/dialogs-popups.js';
import { webrtcStep } from './setup/webrtc.js';
import { renderParams } from './testing/test-params.js';

function fakePage(viewport: Viewport | null) {
  const page = {
    viewport: vi.fn(() => viewport),
    setViewport: vi.fn(async () => undefined),
    setUserAgent: vi.fn(async () => undefined),
    setExtraHTTPHeaders: vi.fn(async () => undefined),
    setJavaScriptEnabled: vi.fn(async () => undefined),
    emulateMediaType: vi.fn(async () => undefined),
    emulateMediaFeatures: vi.fn(async () => undefined),
    emulateTimezone: vi.fn(async () => undefined),
    setBypassCSP: vi.fn(async () => undefined),
  };
  return { page, asPage: page as unknown as Page };
}

describe('viewportFor', () => {
  describe('When no viewport parameter is given', () => {
    it('should be 1280x1080 at scale 1', () => {
      expect(viewportFor(renderParams())).toMatchObject({ width: 1280, height: 1080, deviceScaleFactor: 1, isMobile: false });
    });
  });
});

/** The steps that only act when their parameters are given (dialogs, windows and WebRTC are always handled; requests and cookie popups under the default block_annoyance, challenges in the full browser). */
const ALWAYS = new Set([requestsStep, consentStep, authenticationStep, dialogsAndPopupsStep, webrtcStep]);
const OPTIONAL_STEPS = PAGE_SETUP_STEPS.filter((step) => !ALWAYS.has(step));

describe('setupPage', () => {
  describe('When the page already has the default viewport and nothing else is asked', () => {
    it('should make no call to the browser', async () => {
      const { page, asPage } = fakePage({ width: 1280, height: 1080, deviceScaleFactor: 1 });
      await setupPage(asPage, renderParams(), 'screenshot', OPTIONAL_STEPS);
      expect(page.setViewport).not.toHaveBeenCalled();
      expect(page.setUserAgent).not.toHaveBeenCalled();
      expect(page.setExtraHTTPHeaders).not.toHaveBeenCalled();
      expect(page.setJavaScriptEnabled).not.toHaveBeenCalled();
    });
  });

  describe('When viewport, user agent, headers and js_enabled are given', () => {
    it('should apply each', async () => {
      const { page, asPage } = fakePage({ width: 1280, height: 1080, deviceScaleFactor: 1 });
      await setupPage(
        asPage,
        renderParams({ viewport_width: 400, device_scale_factor: 2, user_agent: 'UA/1', headers: ['X-A:1;X-B: two'], js_enabled: false }),
        'screenshot',
        OPTIONAL_STEPS,
      );
      expect(page.setViewport).toHaveBeenCalledWith(expect.objectContaining({ width: 400, height: 1080, deviceScaleFactor: 2 }));
      expect(page.setUserAgent).toHaveBeenCalledWith({ userAgent: 'UA/1' });
      expect(page.setExtraHTTPHeaders).toHaveBeenCalledWith({ 'X-A': '1', 'X-B': 'two' });
      expect(page.setJavaScriptEnabled).toHaveBeenCalledWith(false);
    });
  });
});

describe('viewportFor with a device', () => {
  describe('When viewport_device is given alone', () => {
    it('should take the device viewport', () => {
      expect(viewportFor(renderParams({ viewport_device: 'iphone_13_pro_max' }))).toEqual(DEVICES.get('iphone_13_pro_max')!.viewport);
    });
  });

  describe('When explicit viewport parameters are given too', () => {
    it('should let them win, and turn the device sideways for viewport_landscape', () => {
      const phone = DEVICES.get('iphone_13_pro_max')!.viewport;
      expect(viewportFor(renderParams({ viewport_device: 'iphone_13_pro_max', viewport_width: 500, device_scale_factor: 1 }))).toMatchObject({
        width: 500,
        height: phone.height,
        deviceScaleFactor: 1,
      });
      expect(viewportFor(renderParams({ viewport_device: 'iphone_13_pro_max', viewport_landscape: true }))).toMatchObject({
        width: phone.height,
        height: phone.width,
        isLandscape: true,
      });
    });
  });
});

describe('parseHeaderList', () => {
  describe('When entries hold several pairs', () => {
    it('should split on semicolons and the first colon', () => {
      expect(parseHeaderList(['a:1; b:x:y', 'c: 3;'])).toEqual({ a: '1', b: 'x:y', c: '3' });
    });
  });

  describe('When a pair has no colon or a bad name', () => {
    it('should fail with invalid_parameter naming headers', () => {
      expect(() => parseHeaderList(['novalue'])).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
      expect(() => parseHeaderList(['bad name:1'])).toThrow(
        expect.objectContaining({ details: [expect.objectContaining({ parameter: 'headers' })] }),
      );
    });
  });
});
