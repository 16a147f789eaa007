import { describe, expect, it } from 'vitest';
import { imageFormat, screenshotOptions } from './screenshot.js';
import { renderParams } from './testing/test-params.js';

describe('screenshotOptions', () => {
  describe('When no format is given', () => {
    it('should capture the viewport as JPEG at quality 80', () => {
      expect(screenshotOptions(renderParams())).toEqual({ type: 'jpeg', quality: 80, fullPage: false });
    });
  });

  describe('When format is jpg', () => {
    it('should treat it as jpeg', () => {
      expect(imageFormat('jpg')).toBe('jpeg');
      expect(screenshotOptions(renderParams({ format: 'jpg', image_quality: 55 }))).toMatchObject({ type: 'jpeg', quality: 55 });
    });
  });

  describe('When format is png', () => {
    it('should set no quality', () => {
      expect(screenshotOptions(renderParams({ format: 'png', image_quality: 50 }))).toEqual({ type: 'png', fullPage: false });
    });
  });

  describe('When format is webp with omit_background', () => {
    it('should keep quality and make the background transparent', () => {
      expect(screenshotOptions(renderParams({ format: 'webp', omit_background: true }))).toEqual({
        type: 'webp',
        quality: 80,
        fullPage: false,
        omitBackground: true,
      });
    });
  });

  describe('When format is gif', () => {
    it('should capture a png to convert', () => {
      expect(screenshotOptions(renderParams({ format: 'gif', full_page: true }))).toEqual({ type: 'png', fullPage: true });
    });
  });

  describe('When the format is unknown', () => {
    it('should fail with invalid_parameter naming format', () => {
      expect(() => imageFormat('bmp')).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
    });
  });
});
