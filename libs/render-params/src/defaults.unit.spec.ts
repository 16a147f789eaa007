import { describe, expect, it } from 'vitest';
import {
  CALLER_PARAMETERS,
  DEFAULT_IMAGE_QUALITY,
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_VIEWPORT,
  formatOf,
  isIanaTimeZone,
  parameterDefaults,
  planRestrictedFeaturesOf,
  renderBudgetMs,
  timeoutSecondsOf,
  validateRenderParams,
} from './index.js';

// The render rules every service reads from this library, each stated once.
describe('Render defaults', () => {
  describe('When a render gives no timeout, viewport, quality or format', () => {
    it('should get the library defaults from validation, the same values the services read', () => {
      const { params } = validateRenderParams('screenshot', { url: 'https://example.com' });
      expect(params).toMatchObject({
        timeout: DEFAULT_TIMEOUT_SECONDS,
        viewport_width: DEFAULT_VIEWPORT.width,
        viewport_height: DEFAULT_VIEWPORT.height,
        image_quality: DEFAULT_IMAGE_QUALITY,
        format: 'jpeg',
      });
      expect([DEFAULT_TIMEOUT_SECONDS, DEFAULT_VIEWPORT, DEFAULT_IMAGE_QUALITY]).toEqual([30, { width: 1280, height: 1080 }, 80]);
      expect(parameterDefaults('pdf')).toMatchObject({ timeout: 30, viewport_width: 1280, viewport_height: 1080 });
    });
  });

  describe('When the budget of a render is asked', () => {
    it.each([
      [{}, 30],
      [{ timeout: 0 }, 30],
      [{ timeout: 12 }, 12],
    ])('should read %j as %d s', (params, seconds) => {
      expect(timeoutSecondsOf(params)).toBe(seconds);
      expect(renderBudgetMs('screenshot', params)).toBe(seconds * 1000);
    });
  });

  describe('When the output format of a render is named', () => {
    it.each([
      ['pdf', {}, 'pdf'],
      ['screenshot', {}, 'jpeg'],
      ['screenshot', { format: 'jpg' }, 'jpeg'],
      ['screenshot', { format: 'png' }, 'png'],
      ['scrape', {}, 'html'],
      ['scrape', { format: 'md' }, 'md'],
      ['screencast', {}, 'mp4'],
      ['screencast', { format: 'webm' }, 'webm'],
    ])('should name %s with %j %s', (operation, params, format) => {
      expect(formatOf(operation, params)).toBe(format);
    });

    it('should store jpg as jpeg once validated', () => {
      expect(validateRenderParams('screenshot', { url: 'https://example.com', format: 'jpg' }).params.format).toBe('jpeg');
    });
  });
});

describe('Plan-restricted parameters', () => {
  describe('When a render asks for a GPU or a country, as given or as validated', () => {
    it.each([
      [{ gpu_rendering: 'true', ip_location: 'us' }, ['gpu_rendering', 'ip_location']],
      [{ gpu_rendering: '1' }, ['gpu_rendering']],
      [{ gpu_rendering: true, ip_location: undefined }, ['gpu_rendering']],
      [{ gpu_rendering: 'false', ip_location: '' }, []],
      [{ gpu_rendering: false }, []],
    ])('should name the features of %j', (params, features) => {
      expect(planRestrictedFeaturesOf(params)).toEqual(features);
    });

    it('should find the same ones before and after validation', () => {
      const given = { url: 'https://example.com', gpu_rendering: 'true', ip_location: 'de' };
      expect(planRestrictedFeaturesOf(validateRenderParams('screenshot', given).params)).toEqual(planRestrictedFeaturesOf(given));
    });
  });
});

describe('Caller parameters', () => {
  it('should never become render parameters', () => {
    const { params } = validateRenderParams('screenshot', { url: 'https://example.com', access_key: 'k', signature: 's' });
    for (const name of CALLER_PARAMETERS) expect(params).not.toHaveProperty(name);
  });
});

describe('Time zones (a page timezone and a task schedule alike)', () => {
  it.each(['Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'UTC', 'Etc/UTC', 'US/Eastern', 'EST', 'EST5EDT'])(
    'should accept the tz database name %s, for a page too',
    (zone) => {
      expect(isIanaTimeZone(zone)).toBe(true);
      expect(validateRenderParams('screenshot', { url: 'https://example.com', timezone: zone }).params.timezone).toBe(zone);
    },
  );

  it.each(['utc', '+01:00', 'GMT+1', 'CEST', 'PST', 'IST', 'SystemV/EST5', 'Europe/Atlantis', 'Mars/Olympus', ''])('should refuse %j', (zone) => {
    expect(isIanaTimeZone(zone)).toBe(false);
    expect(() => validateRenderParams('screenshot', { url: 'https://example.com', timezone: zone })).toThrow(
      expect.objectContaining({ code: 'invalid_parameter' }),
    );
  });
});
