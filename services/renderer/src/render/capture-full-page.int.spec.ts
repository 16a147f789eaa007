import type { IncomingMessage, ServerResponse } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageInfo, startFixtureServer, type FixtureServer } from '@app/testkit';
import { fixturePage } from './testing/fixture-page.js';
import { useRenderer } from './testing/render-harness.js';

// full_page_max_height, lazy images and endless pages: proved on the decoded pixels of real captures.
let fixture: FixtureServer;
let greenPng: Buffer;

/** Band i (100 px high) is coloured rgb(i % 256, 40 * floor(i / 256), 100): its number can be read back from the pixels. */
const bandColour = (i: number) => `rgb(${i % 256},${40 * Math.floor(i / 256)},100)`;
const bandAt = (red: number, green: number) => red + 256 * Math.round(green / 40);
const BANDS = Array.from({ length: 600 }, (_, i) => `<div style="height:100px;background:${bandColour(i)}"></div>`).join('');

/** 12 images 1,200 px apart, on red placeholders: six loading=lazy, six set by an IntersectionObserver. */
const LAZY_IMAGES = Array.from({ length: 12 }, (_, i) =>
  i % 2 === 0
    ? `<div style="height:1100px"></div><img loading="lazy" src="/green.png?n=${i}" width="100" height="100">`
    : `<div style="height:1100px"></div><img class="later" data-src="/green.png?n=${i}" width="100" height="100">`,
).join('');
const LAZY_SCRIPT = `<script>
  const io = new IntersectionObserver((entries) => entries.forEach((e) => {
    if (e.isIntersecting && !e.target.src) { e.target.src = e.target.dataset.src; io.unobserve(e.target); }
  }));
  document.querySelectorAll('img.later').forEach((img) => io.observe(img));
</script>`;

/** A feed that appends a 1,000 px item whenever its end comes into view, forever. */
const ENDLESS_FEED = `<div id="feed"></div><div id="end" style="height:10px"></div>
<script>
  let n = 0;
  const add = () => { const item = document.createElement('div'); item.style.cssText = 'height:1000px;background:' + (n++ % 2 ? '#00f' : '#0f0');
    document.getElementById('feed').appendChild(item); };
  add();
  new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) { add(); add(); } }, { rootMargin: '200px' })
    .observe(document.getElementById('end'));
</script>`;

const slowImage = (_req: IncomingMessage, res: ServerResponse) =>
  setTimeout(() => res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(greenPng), 300);

beforeAll(async () => {
  greenPng = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#00ff00' } }).png().toBuffer();
  fixture = await startFixtureServer({
    '/bands': fixturePage(BANDS),
    '/lazy-images': fixturePage(`${LAZY_IMAGES}${LAZY_SCRIPT}`, 'img{display:block;background:#f00}'),
    '/green.png': slowImage,
    '/feed': fixturePage(ENDLESS_FEED),
  });
});
afterAll(() => fixture?.close());

const r = useRenderer();
const url = (path: string) => `${fixture.origin}${path}`;

/** The band number read at the middle of every 100 px of the image. */
async function bandsIn(png: Buffer): Promise<number[]> {
  const { data, info } = await sharp(png, { limitInputPixels: false }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return Array.from({ length: Math.floor(info.height / 100) }, (_, i) => {
    const at = ((i * 100 + 50) * info.width + 5) * info.channels;
    return bandAt(data[at]!, data[at + 1]!);
  });
}

const pixel = async (png: Buffer, x: number, y: number) => {
  const { data, info } = await sharp(png, { limitInputPixels: false }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at], data[at + 1], data[at + 2]];
};

describe('full-page captures', () => {
  describe('When a 60,000 px page of numbered bands is captured whole', () => {
    it('should stop at 16,384 px by default, every band in order, none repeated', async () => {
      const out = await r.render('screenshot', { url: url('/bands'), full_page: true, format: 'png', viewport_width: 200, viewport_height: 600 });
      expect(await imageInfo(out.body)).toEqual({ format: 'png', width: 200, height: 16_384 });
      expect(await bandsIn(out.body)).toEqual(Array.from({ length: 163 }, (_, i) => i));
    });

    it('should stop at full_page_max_height=50000, every band in order, none repeated', async () => {
      const out = await r.render('screenshot', {
        url: url('/bands'),
        full_page: true,
        full_page_max_height: 50_000,
        format: 'png',
        viewport_width: 100,
        viewport_height: 600,
      });
      expect(await imageInfo(out.body)).toEqual({ format: 'png', width: 100, height: 50_000 });
      expect(await bandsIn(out.body)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    }, 120_000);

    it('should stop where a webp can still be encoded (16,383 px)', async () => {
      const out = await r.render('screenshot', { url: url('/bands'), full_page: true, format: 'webp', viewport_width: 200, viewport_height: 600 });
      expect(await imageInfo(out.body)).toEqual({ format: 'webp', width: 200, height: 16_383 });
    });
  });

  describe('When the page has lazy images (native and script-set) below the first screen', () => {
    it.each([false, true])('should show every one of them in the pixels (capture_beyond_viewport=%s for native ones)', async (beyond) => {
      const out = await r.render('screenshot', {
        url: url('/lazy-images'),
        full_page: true,
        capture_beyond_viewport: beyond,
        format: 'png',
        viewport_width: 300,
        viewport_height: 600,
      });
      expect(await imageInfo(out.body)).toMatchObject({ height: 12 * 1_200 });
      const seen = await Promise.all(Array.from({ length: 12 }, (_, i) => pixel(out.body, 50, i * 1_200 + 1_100 + 50)));
      // With the viewport left as it is, no observer sees the script-set ones: only native ones are asked for.
      const expected = Array.from({ length: 12 }, (_, i) => (beyond && i % 2 === 1 ? [255, 0, 0] : [0, 255, 0]));
      expect(seen).toEqual(expected);
    });
  });

  describe('When full_page_scroll meets a page that grows forever', () => {
    it('should stop scrolling at the cap and answer the scrolled page, that high', async () => {
      const out = await r.render('screenshot', {
        url: url('/feed'),
        full_page_scroll: true,
        full_page_scroll_by_duration: 200,
        format: 'png',
        viewport_width: 200,
        viewport_height: 600,
        timeout: 30,
      });
      expect(await imageInfo(out.body)).toMatchObject({ width: 200, height: 16_384 });
      // Items alternate green and blue all the way down: the feed the scroll loaded is in the image.
      expect(await pixel(out.body, 100, 15_500)).toEqual([0, 0, 255]);
    });

    it('should stop scrolling with time left for the capture when the timeout comes first', async () => {
      const out = await r.render('screenshot', {
        url: url('/feed'),
        full_page_scroll: true,
        full_page_scroll_by_amount: 300,
        full_page_scroll_by_duration: 400,
        format: 'png',
        viewport_width: 200,
        viewport_height: 600,
        timeout: 10,
      });
      const { height } = await imageInfo(out.body);
      expect(height).toBeGreaterThan(3_000);
      expect(height).toBeLessThan(16_384);
    });
  });
});
