import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, videoFrames, videoInfo, type FixtureServer } from '@app/testkit';
import { fixturePage } from './testing/fixture-page.js';
import { useRenderer } from './testing/render-harness.js';

// Screencasts decoded by ffprobe/ffmpeg: container, codec, size, duration, and what the frames show.
let fixture: FixtureServer;
const page = fixturePage;

beforeAll(async () => {
  fixture = await startFixtureServer({
    // A clock that changes every animation frame, so Chromium keeps sending frames.
    '/moving': page(
      '<div id="box" style="position:absolute;top:20px;width:40px;height:40px;background:#f00"></div>' +
        '<script>const b=document.getElementById("box");(function f(t){b.style.left=(t/5%200)+"px";requestAnimationFrame(f)})(0)</script>',
      'html,body{background:#fff;height:100%}',
    ),
    '/still': page('<p>still</p>', 'html,body{background:#fff;height:100%}'),
    // White at the top, black at the bottom: a frame's brightness says how far the page is scrolled.
    '/tall': page('<div style="height:6000px;background:linear-gradient(#fff,#000)"></div>'),
    '/never': () => undefined, // answers nothing, ever
    // Loads, then its script never gives the page's thread back.
    '/spin': page('<p>spin</p><script>while (true) {}</script>'),
  });
});
afterAll(() => fixture?.close());

const r = useRenderer();
const url = (path: string) => `${fixture.origin}${path}`;
const FRAME = 1 / 25;

describe('screencast', () => {
  describe('When each format is asked for', () => {
    it.each([
      ['mp4', 'video/mp4', 'h264', { brand: 'isom' }],
      ['mov', 'video/quicktime', 'h264', { brand: 'qt  ' }],
      ['webm', 'video/webm', 'vp9', { docType: 'webm' }],
      ['avi', 'video/x-msvideo', 'mpeg4', { container: 'avi' }],
    ])('should record %s of the viewport size and the duration within one frame', async (format, contentType, codec, container) => {
      const out = await r.render('screencast', { url: url('/moving'), format, duration: 2, viewport_width: 320, viewport_height: 240 });
      expect(out.contentType).toBe(contentType);
      expect(out.extension).toBe(format);
      const info = await videoInfo(out.body);
      expect(info).toMatchObject({ codec, width: 320, height: 240, frameRate: 25, ...container });
      expect(Math.abs(info.durationSeconds - 2)).toBeLessThanOrEqual(FRAME);
      expect(info.frames).toBe(50);
    });
  });

  describe('When the page does not change at all', () => {
    it('should still last the whole duration (the one frame repeated)', async () => {
      const out = await r.render('screencast', { url: url('/still'), duration: 1.5, viewport_width: 200, viewport_height: 100 });
      const info = await videoInfo(out.body);
      expect(info).toMatchObject({ container: expect.stringContaining('mp4'), codec: 'h264', width: 200, height: 100 });
      expect(Math.abs(info.durationSeconds - 1.5)).toBeLessThanOrEqual(FRAME);
    });
  });

  describe('When the viewport has an odd size', () => {
    it('should keep it in webm and leave out the last column and row in mp4 (H.264 needs even sizes)', async () => {
      const viewport = { viewport_width: 301, viewport_height: 201, duration: 1 };
      const webm = await videoInfo((await r.render('screencast', { url: url('/still'), format: 'webm', ...viewport })).body);
      const mp4 = await videoInfo((await r.render('screencast', { url: url('/still'), format: 'mp4', ...viewport })).body);
      expect([webm.width, webm.height]).toEqual([301, 201]);
      expect([mp4.width, mp4.height]).toEqual([300, 200]);
    });
  });

  describe('When the scroll scenario records a tall page', () => {
    const brightness = (f: { bands: number[] }) => f.bands.reduce((a, b) => a + b, 0) / f.bands.length;

    it('should scroll down over time and end back at the top with scroll_back', async () => {
      const out = await r.render('screencast', {
        url: url('/tall'),
        scenario: 'scroll',
        duration: 6,
        viewport_width: 320,
        viewport_height: 240,
        scroll_by_amount: 2000,
        scroll_by_delay: 200,
        scroll_by_duration: 600,
        scroll_back_delay: 300,
        scroll_easing: 'ease_in_out_cubic',
      });
      const frames = (await videoFrames(out.body, { perSecond: 5 })).map(brightness);
      const top = frames[0]!;
      expect(top).toBeGreaterThan(240); // the white top of the page
      // Darker while scrolled down: the page moved under the viewport.
      expect(Math.min(...frames)).toBeLessThan(top - 100);
      expect(new Set(frames.map((b) => Math.round(b / 10))).size).toBeGreaterThan(3);
      expect(Math.abs(frames.at(-1)! - top)).toBeLessThan(3);
    });

    it('should stay down at the end without scroll_back', async () => {
      const out = await r.render('screencast', {
        url: url('/tall'),
        scenario: 'scroll',
        duration: 4,
        viewport_width: 320,
        viewport_height: 240,
        scroll_by_amount: 3000,
        scroll_by_delay: 100,
        scroll_by_duration: 400,
        scroll_back: false,
      });
      const frames = (await videoFrames(out.body, { perSecond: 5 })).map(brightness);
      expect(frames.at(-1)!).toBeLessThan(frames[0]! - 150);
    });
  });

  describe('When the page never loads', () => {
    it('should fail with render_timeout within timeout, recording nothing', async () => {
      const started = Date.now();
      await expect(r.render('screencast', { url: url('/never'), timeout: 2, duration: 5 })).rejects.toMatchObject({ code: 'render_timeout' });
      expect(Date.now() - started).toBeLessThan(2_000 + 5_000);
    });

    // The recording allowance (duration + the finishing time) is 40 s here: ending well before it
    // shows the loading deadline itself stopped the render.
    it.each([
      ['a page whose script never ends', { url: '/spin' }],
      ['html whose script never ends', { html: '<p>spin</p><script>while (true) {}</script>' }],
    ])('should fail with render_timeout after timeout, not after the recording allowance, for %s', async (_name, input) => {
      const target = 'url' in input ? { url: url(input.url) } : input;
      const started = Date.now();
      await expect(r.render('screencast', { ...target, timeout: 2, duration: 30 })).rejects.toMatchObject({ code: 'render_timeout' });
      expect(Date.now() - started).toBeLessThan(2_000 + 10_000);
    });
  });
});
