import type { RenderParams } from '@app/proto/render';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../browser/index.js';
import { startFixtureServer, type FixtureServer } from '../browser/testing/fixture-server.js';
import { imageSize } from './image-size.js';
import { poolRenderer } from './pool-renderer.js';
import { renderJob } from './render-job.js';
import { renderParams } from './testing/test-params.js';
import type { RenderOperation, RenderOutput } from './types.js';

let fixture: FixtureServer;
let pool: BrowserPool;

beforeAll(async () => {
  fixture = await startFixtureServer();
  pool = new BrowserPool({ browsers: 1, concurrency: 2, maxQueue: 8, restartAfter: 0, warmContexts: 2 });
  await pool.start();
});
afterAll(async () => {
  await pool?.stop();
  await fixture?.close();
});

const render = (operation: RenderOperation, params: Partial<RenderParams>, timeoutMs = 10_000): Promise<RenderOutput> =>
  poolRenderer(pool).render(operation, renderParams(params), timeoutMs);

async function pixel(image: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [...data.subarray(at, at + 3)];
}

describe('renderJob', () => {
  describe('When a screenshot has no format or viewport', () => {
    it('should be a 1280x1080 JPEG of the viewport', async () => {
      const out = await render('screenshot', { url: fixture.url('/') });
      expect(out).toMatchObject({ contentType: 'image/jpeg', extension: 'jpg', pageStatus: 200, headers: {} });
      expect([...out.body.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      expect(imageSize(out.body)).toEqual({ type: 'jpeg', width: 1280, height: 1080 });
    });
  });

  describe('When format is png or webp', () => {
    it.each([
      ['png', 'image/png', 'png'],
      ['webp', 'image/webp', 'webp'],
      ['gif', 'image/gif', 'gif'],
    ] as const)('should return a 1280x1080 %s', async (format, contentType, extension) => {
      const out = await render('screenshot', { url: fixture.url('/'), format });
      expect(out).toMatchObject({ contentType, extension });
      expect(imageSize(out.body)).toEqual({ type: format, width: 1280, height: 1080 });
    });
  });

  describe('When html is given instead of url', () => {
    it('should render the markup', async () => {
      const out = await render('screenshot', {
        html: '<!doctype html><style>html,body{margin:0;height:100%;background:#ff0000}</style>',
        format: 'png',
      });
      expect(out.pageStatus).toBeUndefined();
      expect(await pixel(out.body, 640, 540)).toEqual([255, 0, 0]);
    });
  });

  describe('When viewport, scale and full_page are given', () => {
    it('should size the image from the viewport times the scale factor', async () => {
      const out = await render('screenshot', { url: fixture.url('/'), viewport_width: 400, viewport_height: 300, device_scale_factor: 2 });
      expect(imageSize(out.body)).toMatchObject({ width: 800, height: 600 });
    });

    it('should capture the whole page height with full_page', async () => {
      const out = await render('screenshot', { url: fixture.url('/tall'), full_page: true, format: 'png' });
      expect(imageSize(out.body)).toMatchObject({ width: 1280, height: 3000 });
    });
  });

  describe('When the page answers with an HTTP error', () => {
    it('should still render it and report the status', async () => {
      const out = await render('screenshot', { url: fixture.url('/not-found'), metadata_status: true });
      expect(out.pageStatus).toBe(404);
      expect(out.headers['X-Service-Metadata-Status']).toBe('404');
      expect(imageSize(out.body)).toMatchObject({ width: 1280, height: 1080 });
    });
  });

  describe('When metadata is asked for', () => {
    it('should add the title, hash, size, icon and page headers', async () => {
      const out = await render('screenshot', {
        url: fixture.url('/'),
        metadata_title: true,
        metadata_hash: true,
        metadata_image_size: true,
        metadata_icon: true,
        metadata_headers: true,
      });
      const { createHash } = await import('node:crypto');
      expect(out.headers).toMatchObject({
        'X-Service-Metadata-Title': 'Fixture%20page',
        'X-Service-Metadata-Hash': createHash('sha256').update(out.body).digest('hex'),
        'X-Service-Metadata-Image-Size': '1280x1080',
        'X-Service-Metadata-Icon': fixture.url('/icon.svg'),
      });
      expect(JSON.parse(out.headers['X-Service-Metadata-Headers']!)).toMatchObject({ 'x-fixture': 'yes' });
    });
  });

  describe('When a pdf is asked for', () => {
    it('should return a PDF document', async () => {
      const out = await render('pdf', { url: fixture.url('/'), pdf_paper_format: 'a4', pdf_print_background: true });
      expect(out).toMatchObject({ contentType: 'application/pdf', extension: 'pdf' });
      expect(out.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    });
  });

  describe('When the page is scraped', () => {
    it('should return the HTML after scripts ran', async () => {
      const out = await render('scrape', {
        html: '<!doctype html><title>t</title><div id="x"></div><script>x.textContent = "from script"</script>',
      });
      expect(out).toMatchObject({ contentType: 'text/html; charset=utf-8', extension: 'html' });
      expect(out.body.toString('utf8')).toContain('<div id="x">from script</div>');
    });

    it('should not run scripts when js_enabled is false', async () => {
      const out = await render('scrape', {
        html: '<!doctype html><div id="x">static</div><script>x.textContent = "from script"</script>',
        js_enabled: false,
      });
      expect(out.body.toString('utf8')).toContain('<div id="x">static</div>');
    });
  });

  describe('When headers and a user agent are given', () => {
    it('should send them with the page request', async () => {
      const out = await render('scrape', { url: fixture.url('/headers'), headers: ['X-Test-One:1;X-Test-Two: two'], user_agent: 'RenderTest/1.0' });
      const text = out.body.toString('utf8');
      expect(text).toContain('"x-test-one":"1"');
      expect(text).toContain('"x-test-two":"two"');
      expect(text).toContain('"user-agent":"RenderTest/1.0"');
    });
  });

  describe('When wait_until asks for network idle on html input', () => {
    it('should wait and render', async () => {
      const out = await render('scrape', { html: `<img src="${fixture.url('/image.svg')}">`, wait_until: ['networkidle0'] });
      expect(out.body.toString('utf8')).toContain('image.svg');
    });
  });

  describe('When the page cannot be loaded', () => {
    it('should fail with render_failed naming the network error', async () => {
      const closed = await startFixtureServer();
      const url = closed.url('/');
      await closed.close();
      await expect(render('screenshot', { url })).rejects.toMatchObject({
        code: 'render_failed',
        message: 'url: the page could not be loaded (ERR_CONNECTION_REFUSED).',
      });
    });
  });

  describe('When the page does not load within the timeout', () => {
    it('should fail with render_timeout from the pool deadline', async () => {
      await expect(render('screenshot', { url: fixture.url('/slow?ms=3000') }, 500)).rejects.toMatchObject({
        code: 'render_timeout',
      });
    });

    it('should fail with render_timeout from its own navigation deadline', async () => {
      const params = renderParams({ url: fixture.url('/slow?ms=3000') });
      const job = pool.run((page) => renderJob(page, 'screenshot', params, { timeoutMs: 500 }), { timeoutMs: 5_000 });
      await expect(job).rejects.toMatchObject({ code: 'render_timeout', message: expect.stringContaining('0.5 seconds') });
    });
  });
});
