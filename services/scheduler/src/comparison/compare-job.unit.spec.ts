import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { Monitor } from '../domain/monitor/monitor.js';
import { runCompareJob } from './compare-job.js';

const visual = { mode: 'visual', confirm: false } as Monitor;
const png = (background: string, box?: string) =>
  sharp({ create: { width: 320, height: 240, channels: 4, background } })
    .composite(box ? [{ input: { create: { width: 60, height: 40, channels: 4, background: box } }, left: 100, top: 80 }] : [])
    .png()
    .toBuffer();
const job = (body: Uint8Array, previous?: Uint8Array) => ({
  monitor: visual,
  result: { body, extension: 'png', contentType: 'image/png' },
  ...(previous ? { previous } : {}),
  labels: { before: 'r1', after: 'r2' },
});

describe('A visual run’s comparison job', () => {
  describe('When the screenshot is of one colour (a blank page)', () => {
    it('should say the page is empty, with or without a baseline, and compare nothing', async () => {
      const blank = await png('#ffffff');
      expect(await runCompareJob(job(blank))).toEqual({ empty: true });
      expect(await runCompareJob(job(blank, await png('#ffffff', '#336699')))).toEqual({ empty: true });
    });
  });

  describe('When the screenshot differs from the blank page by one pixel only', () => {
    it('should not take it for an empty page', async () => {
      const onePixel = await sharp({ create: { width: 320, height: 240, channels: 4, background: '#ffffff' } })
        .composite([{ input: { create: { width: 1, height: 1, channels: 4, background: '#000000' } }, left: 319, top: 239 }])
        .png()
        .toBuffer();
      expect(await runCompareJob(job(onePixel))).toEqual({});
    });
  });

  describe('When a first screenshot (no baseline) shows something', () => {
    it('should make it the baseline: nothing compared', async () => {
      expect(await runCompareJob(job(await png('#ffffff', '#336699')))).toEqual({});
    });
  });

  describe('When a screenshot is compared with its baseline', () => {
    it('should score the changed region', async () => {
      const result = await runCompareJob(job(await png('#ffffff', '#ff0000'), await png('#ffffff', '#336699')));
      expect(result.empty).toBeUndefined();
      expect(result.comparison?.boxes).toEqual([{ x: 100, y: 80, width: 60, height: 40 }]);
      expect(result.comparison?.score).toBeCloseTo(((60 * 40) / (320 * 240)) * 100, 5);
    });
  });

  describe('When a first result is no image at all', () => {
    it('should keep it as the baseline, and fail its comparison once there is one', async () => {
      const notAnImage = new TextEncoder().encode('not an image');
      expect(await runCompareJob(job(notAnImage))).toEqual({});
      await expect(runCompareJob(job(notAnImage, await png('#ffffff', '#336699')))).rejects.toThrow();
    });
  });
});
