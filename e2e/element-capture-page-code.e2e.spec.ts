import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageInfo, pixelAt, startFixtureServer, startTestStack, type FixtureServer, type TestStack } from '@app/testkit';

// selector, wait_for_selector, styles, scripts and full_page_max_height over HTTPS against the whole
// stack: the answers a client gets (images, and the 400 and 500 codes with the parameter named).
let stack: TestStack;
let fixture: FixtureServer;

const page = (body: string, style = '') => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;background:#fff}${style}</style></head><body>${body}</body></html>`);
};

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/card': page('<div style="height:1500px"></div><div id="card" style="width:333px;height:777px;background:#00f"></div>'),
    '/late': page(`<script>setTimeout(() => { const d = document.createElement('div'); d.id = 'late';
      d.style.cssText = 'position:fixed;inset:0;background:#0f0'; document.body.appendChild(d); }, 1000);</script>`),
  });
  stack = await startTestStack({ renderers: 1, env: { ALLOW_PRIVATE_TARGETS: '1', RENDERER_CONCURRENCY: '2' } });
});

afterAll(async () => {
  await stack?.stop();
  await fixture?.close();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const post = (operation: string, json: Record<string, unknown>) => stack.call('POST', `/v1/${operation}`, { headers: key(), json });
const get = (operation: string, query: string) =>
  stack.call('GET', `/v1/${operation}?access_key=${encodeURIComponent(stack.demo.accessKey)}&${query}`);
const url = (path: string) => `${fixture.origin}${path}`;

describe('element capture, waiting, styles and scripts through the API', () => {
  describe('When a screenshot names a selector (GET form, 2x)', () => {
    it('should answer the element alone, its box times the scale factor', async () => {
      const res = await get('screenshot', `url=${encodeURIComponent(url('/card'))}&selector=%23card&device_scale_factor=2&format=png&viewport_width=600&viewport_height=400`);
      expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      expect(await imageInfo(res.body)).toEqual({ format: 'png', width: 666, height: 1554 });
      expect(await pixelAt(res.body, 333, 777)).toEqual([0, 0, 255]);
    });
  });

  describe('When the selector matches nothing', () => {
    it('should answer 400 selector_not_found naming selector', async () => {
      const res = await post('screenshot', { url: url('/card'), selector: '#nothing' });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ code: 'selector_not_found', details: [{ parameter: 'selector' }] });
    });
  });

  describe('When the selector comes with full_page', () => {
    it('should answer 400 invalid_parameter naming selector and full_page', async () => {
      const res = await post('screenshot', { url: url('/card'), selector: '#card', full_page: true });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'invalid_parameter',
        details: [{ parameter: 'selector', message: 'selector captures one element: it cannot be combined with full_page' }],
      });
    });
  });

  describe('When wait_for_selector waits for what comes late, and for what never comes', () => {
    it('should answer the page with it, then 500 render_timeout naming the selector', async () => {
      const arrived = await post('screenshot', { url: url('/late'), wait_for_selector: '#late', format: 'png', viewport_width: 200, viewport_height: 100 });
      expect(arrived.status, arrived.body.toString().slice(0, 300)).toBe(200);
      expect(await pixelAt(arrived.body, 100, 50)).toEqual([0, 255, 0]);

      const never = await post('pdf', { url: url('/late'), wait_for_selector: '#never', timeout: 3 });
      expect(never.status).toBe(500);
      expect(never.json()).toMatchObject({ code: 'render_timeout', message: expect.stringContaining('wait_for_selector "#never"') });
    });
  });

  describe('When styles and scripts are given', () => {
    it('should apply both, answer 400 naming scripts when it throws, and refuse more than 100 kB', async () => {
      const styled = await post('screenshot', {
        url: url('/card'),
        styles: 'html, body { background: #f0f !important }',
        scripts: "document.getElementById('card').remove()",
        format: 'png',
        viewport_width: 200,
        viewport_height: 100,
      });
      expect(styled.status, styled.body.toString().slice(0, 300)).toBe(200);
      expect(await pixelAt(styled.body, 100, 50)).toEqual([255, 0, 255]);

      const thrown = await post('scrape', { url: url('/card'), scripts: "throw new Error('boom')" });
      expect(thrown.status).toBe(400);
      expect(thrown.json()).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'scripts', message: 'scripts threw an error in the page: Error: boom' }] });

      const big = await post('screenshot', { url: url('/card'), styles: 'a'.repeat(100_001) });
      expect(big.status).toBe(400);
      expect(big.json()).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'styles' }] });
    });
  });

  describe('When full_page_max_height is given', () => {
    it('should cap a full page, and answer 400 without full_page', async () => {
      const capped = await post('screenshot', { url: url('/card'), full_page: true, full_page_max_height: 1_000, format: 'png', viewport_width: 400, viewport_height: 300 });
      expect(capped.status, capped.body.toString().slice(0, 300)).toBe(200);
      expect(await imageInfo(capped.body)).toMatchObject({ width: 400, height: 1_000 });

      const alone = await post('screenshot', { url: url('/card'), full_page_max_height: 1_000 });
      expect(alone.status).toBe(400);
      expect(alone.json()).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'full_page_max_height' }] });
    });
  });
});
