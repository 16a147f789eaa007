import { describe, expect, it } from 'vitest';
import { imageFormatOf, screenshotOptions } from './screenshot.js';
import { renderParams } from './testing/test-params.js';

describe('screenshotOptions', () => {
  describe('When no format is given', () => {
    it('should capture the viewport as JPEG at quality 80', () => {
      expect(screenshotOptions(renderParams())).toEqual({ type: 'jpeg', quality: 80, fullPage: false, captureBeyondViewport: false });
    });
  });

  describe('When format is jpg', () => {
    it('should treat it as jpeg', () => {
      expect(imageFormatOf(renderParams({ format: 'jpg' }))).toBe('jpeg');
      expect(screenshotOptions(renderParams({ format: 'jpg', image_quality: 55 }))).toMatchObject({ type: 'jpeg', quality: 55 });
    });
  });

  describe('When format is png', () => {
    it('should set no quality, and encode for speed (lossless: the same pixels)', () => {
      expect(screenshotOptions(renderParams({ format: 'png', image_quality: 50 }))).toEqual({ type: 'png', fullPage: false, captureBeyondViewport: false, optimizeForSpeed: true });
    });
  });

  describe('When format is webp with omit_background', () => {
    it('should keep quality and make the background transparent', () => {
      expect(screenshotOptions(renderParams({ format: 'webp', omit_background: true }))).toEqual({
        type: 'webp',
        quality: 80,
        fullPage: false,
        captureBeyondViewport: false,
        omitBackground: true,
      });
    });
  });

  describe('When format is gif', () => {
    it('should capture a png to convert', () => {
      expect(screenshotOptions(renderParams({ format: 'gif', full_page: true }))).toEqual({ type: 'png', fullPage: true, captureBeyondViewport: false, optimizeForSpeed: true });
    });
  });

  describe('When a clip is given', () => {
    it('should capture that rectangle (x and y default to 0), never the full page', () => {
      expect(screenshotOptions(renderParams({ clip_width: 30, clip_height: 40, clip_y: 5, capture_beyond_viewport: true }))).toMatchObject({
        clip: { x: 0, y: 5, width: 30, height: 40 },
        fullPage: false,
        captureBeyondViewport: true,
      });
    });
  });

  describe('When a thumbnail size is asked', () => {
    it('should capture a lossless png to scale and re-encode', () => {
      expect(screenshotOptions(renderParams({ format: 'jpeg', image_width: 100 }))).toEqual({
        type: 'png',
        fullPage: false,
        captureBeyondViewport: false,
        optimizeForSpeed: true,
      });
    });
  });
});
