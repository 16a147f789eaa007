import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pixelAt, startFixtureServer, type FixtureServer } from '@app/testkit';
import { fixturePage } from './testing/fixture-page.js';
import { useRenderer } from './testing/render-harness.js';

// wait_for_selector: what the page shows once the awaited element is visible; render_timeout when it never is.
let fixture: FixtureServer;

beforeAll(async () => {
  fixture = await startFixtureServer({
    // The element is added 1.5 s after load and paints the whole page green.
    '/late': fixturePage(
      `<script>setTimeout(() => { const d = document.createElement('div'); d.id = 'late'; d.textContent = 'arrived late';
         d.style.cssText = 'position:fixed;inset:0;background:#0f0'; document.body.appendChild(d); }, 1500);</script>`,
      'html,body{background:#f00;height:100%}',
    ),
    // The element is there from the start but hidden; it is shown 1.5 s later.
    '/shown-late': fixturePage(
      `<div id="panel" style="display:none;position:fixed;inset:0;background:#00f"></div>
       <script>setTimeout(() => { document.getElementById('panel').style.display = 'block'; }, 1500);</script>`,
      'html,body{background:#f00;height:100%}',
    ),
  });
});
afterAll(() => fixture?.close());

const r = useRenderer();
const url = (path: string) => `${fixture.origin}${path}`;
const small = { viewport_width: 200, viewport_height: 100, format: 'png' };

describe('wait_for_selector', () => {
  describe('When the page adds the element late', () => {
    it('should capture the page once it is there (green, not the red page before it)', async () => {
      const out = await r.render('screenshot', { url: url('/late'), wait_for_selector: '#late', ...small });
      expect(await pixelAt(out.body, 100, 50)).toEqual([0, 255, 0]);
    });

    it('should read a scrape once it is there', async () => {
      const out = await r.render('scrape', { url: url('/late'), wait_for_selector: '#late' });
      expect(out.body.toString()).toContain('arrived late');
    });
  });

  describe('When the element is in the page but hidden until later', () => {
    it('should wait until it is visible', async () => {
      const out = await r.render('screenshot', { url: url('/shown-late'), wait_for_selector: '#panel', ...small });
      expect(await pixelAt(out.body, 100, 50)).toEqual([0, 0, 255]);
    });
  });

  describe('When the element never comes', () => {
    it('should answer render_timeout naming the selector', async () => {
      await expect(r.render('pdf', { url: url('/late'), wait_for_selector: '#never .comes', timeout: 4 })).rejects.toMatchObject({
        code: 'render_timeout',
        message: 'The render did not finish within the timeout of 4 seconds: no visible element matched wait_for_selector "#never .comes".',
      });
    });
  });

  describe('When the selector is not valid CSS', () => {
    it('should fail with invalid_parameter naming wait_for_selector', async () => {
      await expect(r.render('screenshot', { url: url('/late'), wait_for_selector: 'p[', ...small })).rejects.toMatchObject({
        code: 'invalid_parameter',
        details: [{ parameter: 'wait_for_selector', message: 'wait_for_selector is not a valid CSS selector' }],
      });
    });
  });
});
