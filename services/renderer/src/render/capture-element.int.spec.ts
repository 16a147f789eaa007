import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageInfo, pixelAt, startFixtureServer, type FixtureServer } from '@app/testkit';
import { fixturePage } from './testing/fixture-page.js';
import { useRenderer } from './testing/render-harness.js';

// selector: the image is the element's box (CSS size x device scale factor), measured on real captures.
let fixture: FixtureServer;

/** A red-topped, blue-bottomed element of 437 x 1531 CSS px, 3,000 px down a page whose viewport is 800 x 600. */
const FAR_ELEMENT = `
  <div style="height:3000px;background:#0f0"></div>
  <div style="margin-left:123px;width:437px;height:1531px;display:flex;flex-direction:column" id="far">
    <div style="flex:1;background:#f00"></div><div style="flex:1;background:#00f"></div>
  </div>
  <div style="height:2000px;background:#0f0"></div>`;

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/far': fixturePage(FAR_ELEMENT, 'html,body{background:#fff}'),
    '/cards': fixturePage(
      `<div class="card" style="display:none;width:50px;height:50px;background:#f00"></div>
       <div class="card" style="width:210px;height:90px;background:#00f"></div>
       <div class="card" style="width:300px;height:300px;background:#f00"></div>`,
      'html,body{background:#0f0}',
    ),
  });
});
afterAll(() => fixture?.close());

const r = useRenderer();
const shot = (path: string, input: Record<string, unknown>) =>
  r.render('screenshot', { url: `${fixture.origin}${path}`, viewport_width: 800, viewport_height: 600, format: 'png', ...input });

describe('selector (element capture)', () => {
  describe('When the element lies beyond the viewport and is taller than it', () => {
    it('should answer an image of exactly its box, red at its top and blue at its bottom', async () => {
      const out = await shot('/far', { selector: '#far' });
      expect(await imageInfo(out.body)).toEqual({ format: 'png', width: 437, height: 1531 });
      expect(await pixelAt(out.body, 3, 3)).toEqual([255, 0, 0]);
      expect(await pixelAt(out.body, 433, 1527)).toEqual([0, 0, 255]);
    });

    it('should answer twice its box in each direction at device_scale_factor 2', async () => {
      const out = await shot('/far', { selector: '#far', device_scale_factor: 2 });
      expect(await imageInfo(out.body)).toEqual({ format: 'png', width: 874, height: 3062 });
      expect(await pixelAt(out.body, 5, 5)).toEqual([255, 0, 0]);
      expect(await pixelAt(out.body, 868, 3056)).toEqual([0, 0, 255]);
    });
  });

  describe('When the first match is not rendered', () => {
    it('should capture the first one that is', async () => {
      const out = await shot('/cards', { selector: '.card' });
      expect(await imageInfo(out.body)).toMatchObject({ width: 210, height: 90 });
      expect(await pixelAt(out.body, 105, 45)).toEqual([0, 0, 255]);
    });
  });

  describe('When nothing matches', () => {
    it('should fail with selector_not_found naming selector', async () => {
      await expect(shot('/cards', { selector: '#missing' })).rejects.toMatchObject({
        code: 'selector_not_found',
        message: 'selector: no visible element matches "#missing".',
        details: [{ parameter: 'selector', message: 'no visible element matches "#missing"' }],
      });
    });

    it('should capture the viewport with error_on_selector_not_found=false', async () => {
      const out = await shot('/cards', { selector: '#missing', error_on_selector_not_found: false });
      expect(await imageInfo(out.body)).toMatchObject({ width: 800, height: 600 });
      expect(await pixelAt(out.body, 700, 500)).toEqual([0, 255, 0]);
    });
  });

  describe('When the selector is not valid CSS', () => {
    it('should fail with invalid_parameter naming selector', async () => {
      await expect(shot('/cards', { selector: 'div[' })).rejects.toMatchObject({
        code: 'invalid_parameter',
        details: [{ parameter: 'selector', message: 'selector is not a valid CSS selector' }],
      });
    });
  });
});
