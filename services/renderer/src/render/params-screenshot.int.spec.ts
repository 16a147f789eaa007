import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICES } from '@app/render-params';
import { imageInfo, pixelAt, startFixtureServer, type FixtureServer } from '@app/testkit';
import { fixturePage } from './testing/fixture-page.js';
import { useRenderer } from './testing/render-harness.js';
import { screenshotOptions } from './screenshot.js';

// Screenshot parameters, each proved on the pixels or dimensions of a real capture of a fixture page.
let fixture: FixtureServer;
const page = fixturePage;

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/white': page('', 'html,body{background:#fff;height:100%}'),
    '/noisy': page(Array.from({ length: 400 }, (_, i) => `<span style="color:hsl(${(i * 37) % 360},80%,40%)">w${i * 7919}</span>`).join(' ')),
    '/square': page('<div style="position:absolute;left:50px;top:50px;width:100px;height:100px;background:#f00"></div>', 'html,body{background:#fff}'),
    '/tall': page('<div style="height:2500px;background:#0a0"></div>'),
    '/banner': page('<p>content</p><div id="banner" style="position:fixed;inset:0;background:#f00"></div>', 'html,body{background:#fff}'),
    '/click': page('<button id="go" onclick="document.body.style.background=\'#0f0\'">go</button>', 'html,body{background:#fff;height:100%}'),
    // Content loaded when the reader scrolls near it (a scroll listener, as infinite feeds do): a full page
    // capture, which makes the viewport the page's height without scrolling, does not load it.
    '/lazy': page(
      `<div style="height:2600px"></div><div id="lazy" style="height:300px;background:#fff"></div>
       <script>let loading = false; addEventListener('scroll', () => { if (loading || scrollY + innerHeight < 2600) return; loading = true;
         setTimeout(() => { document.getElementById('lazy').style.background = '#0f0'; fetch('/lazy-hit'); }, 400); });</script>`,
    ),
    '/lazy-hit': (_req, res) => res.end('ok'),
    '/media': page(
      '',
      `html,body{height:100%;background:#fff}
       @media (prefers-color-scheme: dark){html,body{background:#000}}
       @media (prefers-reduced-motion: reduce){html,body{background:#00f}}
       @media print{html,body{background:#f0f}}`,
    ),
    '/red': page('', 'html,body{background:#f00;height:100%}'),
    '/transparent': page('<div style="width:50px;height:50px;background:#00f"></div>'),
    '/ua': (req, res) => page(`<p id="ua">${req.headers['user-agent']}</p>`)(req, res),
  });
});
afterAll(() => fixture?.close());

const r = useRenderer();
const url = (path: string) => `${fixture.origin}${path}`;
const shot = (input: Record<string, unknown>) => r.render('screenshot', { url: url('/white'), ...input });

describe('screenshot parameters', () => {
  describe('When each format is asked for', () => {
    it.each([
      ['jpeg', 'jpeg', 'image/jpeg'],
      ['jpg', 'jpeg', 'image/jpeg'],
      ['png', 'png', 'image/png'],
      ['webp', 'webp', 'image/webp'],
      ['gif', 'gif', 'image/gif'],
    ])('should return %s decoded as %s', async (format, decoded, contentType) => {
      const out = await shot({ format, viewport_width: 300, viewport_height: 200 });
      expect(out.contentType).toBe(contentType);
      expect(await imageInfo(out.body)).toEqual({ format: decoded, width: 300, height: 200 });
    });
  });

  describe('When a png is captured (its encoder tuned for speed)', () => {
    it('should decode to exactly the pixels of the same capture encoded for size', async () => {
      const options = screenshotOptions(r.params('screenshot', { url: url('/noisy'), format: 'png' }));
      expect(options).toMatchObject({ type: 'png', optimizeForSpeed: true });
      const [fast, small] = await r.pool().run(
        async (page) => {
          await page.setViewport({ width: 800, height: 600 });
          await page.goto(url('/noisy'), { waitUntil: 'load' });
          return [Buffer.from(await page.screenshot(options)), Buffer.from(await page.screenshot({ ...options, optimizeForSpeed: false }))];
        },
        { timeoutMs: 30_000 },
      );
      // Encoded differently (the option has an effect), decoded the same.
      expect(fast.equals(small)).toBe(false);
      const [a, b] = await Promise.all([fast, small].map((png) => sharp(png).raw().toBuffer({ resolveWithObject: true })));
      expect(a!.info).toEqual(b!.info);
      expect(a!.data.equals(b!.data)).toBe(true);
    });
  });

  describe('When image_quality changes', () => {
    it.each(['jpeg', 'webp'])('should make a %s of a busy page smaller at low quality', async (format) => {
      const low = await r.render('screenshot', { url: url('/noisy'), format, image_quality: 5 });
      const high = await r.render('screenshot', { url: url('/noisy'), format, image_quality: 95 });
      expect(low.body.length).toBeLessThan(high.body.length * 0.6);
    });
  });

  describe('When image_width and image_height ask for a thumbnail', () => {
    it.each([
      [{ image_width: 200 }, 200, 150],
      [{ image_height: 60 }, 80, 60],
      [{ image_width: 100, image_height: 100 }, 100, 75],
      [{ image_width: 1000, image_height: 300 }, 400, 300],
    ])('should fit %j inside keeping the 4:3 ratio', async (box, width, height) => {
      const out = await shot({ viewport_width: 400, viewport_height: 300, format: 'png', metadata_image_size: true, ...box });
      expect(await imageInfo(out.body)).toMatchObject({ width, height });
      expect(out.headers['X-Service-Metadata-Image-Size']).toBe(`${width}x${height}`);
    });
  });

  describe('When omit_background is set on a page without a background', () => {
    it('should leave the empty area transparent in png and webp, and opaque without it', async () => {
      for (const format of ['png', 'webp']) {
        const alphaAt = async (omit: boolean) => {
          const out = await r.render('screenshot', { url: url('/transparent'), format, omit_background: omit, viewport_width: 200, viewport_height: 100 });
          const { data, info } = await sharp(out.body).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
          return { empty: data[(80 * info.width + 150) * 4 + 3], square: data[(10 * info.width + 10) * 4 + 3] };
        };
        expect(await alphaAt(true)).toEqual({ empty: 0, square: 255 });
        expect(await alphaAt(false)).toEqual({ empty: 255, square: 255 });
      }
    });
  });

  describe('When full_page is set', () => {
    it('should capture the whole height of the page', async () => {
      const viewport = await r.render('screenshot', { url: url('/tall'), format: 'png', viewport_height: 600 });
      const full = await r.render('screenshot', { url: url('/tall'), format: 'png', viewport_height: 600, full_page: true });
      expect(await imageInfo(viewport.body)).toMatchObject({ height: 600 });
      expect(await imageInfo(full.body)).toMatchObject({ width: 1280, height: 2500 });
    });
  });

  describe('When full_page_scroll is set on a page that loads content on scroll', () => {
    it('should scroll it into view so the lazy content appears; full_page alone does not', async () => {
      const common = { url: url('/lazy'), format: 'png', viewport_width: 400, viewport_height: 600 };
      const before = fixture.hits('/lazy-hit');
      const still = await r.render('screenshot', { ...common, full_page: true });
      expect(await pixelAt(still.body, 200, 2750)).toEqual([255, 255, 255]);
      const scrolled = await r.render('screenshot', { ...common, full_page_scroll: true, full_page_scroll_by_amount: 900, full_page_scroll_by_duration: 700 });
      expect(await imageInfo(scrolled.body)).toMatchObject({ width: 400, height: 2900 });
      expect(await pixelAt(scrolled.body, 200, 2750)).toEqual([0, 255, 0]);
      expect(fixture.hits('/lazy-hit')).toBeGreaterThan(before);
    });
  });

  describe('When a clip is given', () => {
    it('should capture exactly that region', async () => {
      const out = await r.render('screenshot', { url: url('/square'), format: 'png', clip_x: 50, clip_y: 50, clip_width: 100, clip_height: 100 });
      expect(await imageInfo(out.body)).toMatchObject({ width: 100, height: 100 });
      for (const [x, y] of [[0, 0], [99, 99], [50, 50]] as const) expect(await pixelAt(out.body, x, y)).toEqual([255, 0, 0]);
    });
  });

  describe('When a clip reaches past the viewport', () => {
    const clip = () => ({ url: url('/tall'), format: 'png', viewport_width: 400, viewport_height: 300, clip_y: 250, clip_width: 100, clip_height: 200 });
    it('should cut it at the viewport unless capture_beyond_viewport is set', async () => {
      expect(await imageInfo((await r.render('screenshot', clip())).body)).toMatchObject({ width: 100, height: 50 });
      const beyond = await r.render('screenshot', { ...clip(), capture_beyond_viewport: true });
      expect(await imageInfo(beyond.body)).toMatchObject({ width: 100, height: 200 });
    });

    it('should be a 400 naming the clip when it lies wholly outside the viewport', async () => {
      await expect(r.render('screenshot', { ...clip(), clip_y: 1000 })).rejects.toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'clip_x' }] });
    });
  });

  describe('When hide_selectors match an element covering the page', () => {
    it('should remove it from the rendering, and name an invalid selector', async () => {
      expect(await pixelAt((await r.render('screenshot', { url: url('/banner'), format: 'png' })).body, 600, 500)).toEqual([255, 0, 0]);
      const hidden = await r.render('screenshot', { url: url('/banner'), format: 'png', hide_selectors: 'p, #banner' });
      expect(await pixelAt(hidden.body, 600, 500)).toEqual([255, 255, 255]);
      await expect(r.render('screenshot', { url: url('/banner'), hide_selectors: ['#banner', 'div[[['] })).rejects.toMatchObject({
        code: 'invalid_parameter',
        details: [{ parameter: 'hide_selectors' }],
      });
    });
  });

  describe('When click_selector is given', () => {
    it('should click the element before the capture', async () => {
      const out = await r.render('screenshot', { url: url('/click'), format: 'png', click_selector: '#go' });
      expect(await pixelAt(out.body, 600, 500)).toEqual([0, 255, 0]);
    });

    it('should answer 400 selector_not_found when nothing matches', async () => {
      await expect(r.render('screenshot', { url: url('/click'), click_selector: '#missing' })).rejects.toMatchObject({
        code: 'selector_not_found',
        message: expect.stringContaining('click_selector'),
      });
    });
  });

  describe('When viewport_device is given', () => {
    it('should use the device viewport, scale and user agent, explicit viewport_* winning', async () => {
      const device = DEVICES.get('iphone_13_pro_max')!;
      const out = await r.render('screenshot', { url: url('/ua'), viewport_device: 'iphone_13_pro_max', format: 'png' });
      expect(await imageInfo(out.body)).toMatchObject({
        width: device.viewport.width * device.viewport.deviceScaleFactor,
        height: device.viewport.height * device.viewport.deviceScaleFactor,
      });
      expect(fixture.requests.filter((q) => q.path === '/ua').at(-1)?.headers['user-agent']).toBe(device.userAgent);
      const wider = await r.render('screenshot', { url: url('/ua'), viewport_device: 'iphone_13_pro_max', viewport_width: 500, device_scale_factor: 1 });
      expect(await imageInfo(wider.body)).toMatchObject({ width: 500, height: device.viewport.height });
    });
  });

  describe('When dark_mode, reduced_motion or media_type=print are set', () => {
    it.each([
      [{}, [255, 255, 255]],
      [{ dark_mode: true }, [0, 0, 0]],
      [{ reduced_motion: true }, [0, 0, 255]],
      [{ media_type: 'print' }, [255, 0, 255]],
    ])('with %j the page should apply its matching CSS', async (input, rgb) => {
      const out = await r.render('screenshot', { url: url('/media'), format: 'png', ...input });
      expect(await pixelAt(out.body, 100, 100)).toEqual(rgb);
    });
  });

  describe('When vision_deficiency is achromatopsia', () => {
    it('should render a red page in greys', async () => {
      const normal = await pixelAt((await r.render('screenshot', { url: url('/red'), format: 'png' })).body, 10, 10);
      const [red, green, blue] = await pixelAt((await r.render('screenshot', { url: url('/red'), format: 'png', vision_deficiency: 'achromatopsia' })).body, 10, 10);
      expect(normal).toEqual([255, 0, 0]);
      expect(Math.abs(red - green) + Math.abs(green - blue)).toBeLessThan(6);
    });
  });
});
