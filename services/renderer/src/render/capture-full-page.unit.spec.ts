import { describe, expect, it } from 'vitest';
import { fullPageHeightCap } from './capture-full-page.js';
import { fullPageScrollBudgetMs } from './prepare/scroll.js';

describe('where a full page stops', () => {
  describe('When no full_page_max_height is given', () => {
    it('should stop at 16,384 CSS px for png and jpeg, and at 16,383 for webp (its limit)', () => {
      expect(fullPageHeightCap(undefined, 'png')).toBe(16_384);
      expect(fullPageHeightCap(undefined, 'jpeg')).toBe(16_384);
      expect(fullPageHeightCap(undefined, 'webp')).toBe(16_383);
    });
  });

  describe('When the device scale factor multiplies the image pixels', () => {
    it('should keep the image within what the format holds (jpeg 65,535, webp 16,383 image px), png unbounded', () => {
      expect(fullPageHeightCap(50_000, 'jpeg', 2)).toBe(32_767);
      expect(fullPageHeightCap(50_000, 'webp', 2)).toBe(8_191);
      expect(fullPageHeightCap(50_000, 'png', 2)).toBe(50_000);
      expect(fullPageHeightCap(20_000, 'jpeg', 1)).toBe(20_000);
    });
  });
});

describe('how long full_page_scroll may scroll', () => {
  describe('When plenty of the timeout is left', () => {
    it('should keep 8 s back for the capture, and the delay', () => {
      expect(fullPageScrollBudgetMs(30_000)).toBe(22_000);
      expect(fullPageScrollBudgetMs(30_000, 2)).toBe(20_000);
    });
  });

  describe('When little is left', () => {
    it('should keep half of it for the capture', () => {
      expect(fullPageScrollBudgetMs(6_000)).toBe(3_000);
    });
  });
});
