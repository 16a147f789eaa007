import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountsAdmin,
  imageInfo,
  pixelAt,
  startFixtureServer,
  startTestStack,
  type FixtureServer,
  type HttpsResponse,
  type TestStack,
} from '@app/testkit';

// The HTTP surface of the render parameters, over HTTPS against the whole stack: GET and POST forms of
// the three operations, the 400 shapes, GET /v1/devices, Content-Disposition, metadata headers, the
// Scale-only features, and a bounded fuzz that must never give a 5xx nor bring a service down.
let stack: TestStack;
let fixture: FixtureServer;
let admin: ReturnType<typeof accountsAdmin>;

const page = (body: string, style = '') => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Params page</title><style>html,body{margin:0;background:#fff}${style}</style></head><body>${body}</body></html>`);
};

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/doc': page('<h1>Heading</h1><ul><li>alpha</li><li>beta</li></ul><div id="ad" style="position:fixed;inset:0;background:#f00"></div>'),
    '/button': page('<button id="b" onclick="document.body.style.background=\'#00f\'">b</button>', 'html,body{height:100%}'),
    '/never': (_req, res) => void setTimeout(() => res.destroyed || res.end('late'), 20_000),
  });
  stack = await startTestStack({ renderers: 1, env: { ALLOW_PRIVATE_TARGETS: '1', RENDERER_CONCURRENCY: '2' } });
  admin = accountsAdmin(stack.authQuotaAddress);
});

afterAll(async () => {
  admin?.close();
  await stack?.stop();
  await fixture?.close();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const post = (operation: string, json: Record<string, unknown>, headers = key()) => stack.call('POST', `/v1/${operation}`, { headers, json });
const get = (path: string, query: string) => stack.call('GET', `${path}?access_key=${encodeURIComponent(stack.demo.accessKey)}&${query}`);
const doc = () => `${fixture.origin}/doc`;

describe('render routes', () => {
  describe('When screenshot is called by GET with repeated and comma-separated lists', () => {
    it('should apply them like the POST form', async () => {
      const query = `url=${encodeURIComponent(doc())}&format=png&hide_selectors=h1&hide_selectors=%23ad&wait_until=load,networkidle0&viewport_width=400&viewport_height=300`;
      const viaGet = await get('/v1/screenshot', query);
      const viaPost = await post('screenshot', {
        url: doc(),
        format: 'png',
        hide_selectors: ['h1', '#ad'],
        wait_until: ['load', 'networkidle0'],
        viewport_width: 400,
        viewport_height: 300,
      });
      for (const res of [viaGet, viaPost]) {
        expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
        expect(await imageInfo(res.body)).toEqual({ format: 'png', width: 400, height: 300 });
        expect(await pixelAt(res.body, 200, 150)).toEqual([255, 255, 255]);
      }
    });
  });

  describe('When pdf is called by GET and POST', () => {
    it('should return a PDF of the paper format asked for', async () => {
      const viaGet = await get('/v1/pdf', `url=${encodeURIComponent(doc())}&pdf_paper_format=a5&pdf_landscape=true&attachment_name=report`);
      const viaPost = await post('pdf', { url: doc(), pdf_paper_format: 'a5', pdf_landscape: true });
      for (const res of [viaGet, viaPost]) {
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/pdf');
        const size = (await PDFDocument.load(res.body)).getPage(0).getSize();
        expect(size.width).toBeGreaterThan(size.height);
        expect(size.width).toBeCloseTo((210 / 25.4) * 72, -0.5);
      }
      expect(viaGet.headers['content-disposition']).toBe('attachment; filename="report.pdf"');
      expect(viaPost.headers['content-disposition']).toBe('inline');
    });
  });

  describe('When scrape is called by GET and POST with format md', () => {
    it('should return Markdown', async () => {
      const viaGet = await get('/v1/scrape', `url=${encodeURIComponent(doc())}&format=md&attachment_name=notes`);
      const viaPost = await post('scrape', { url: doc(), format: 'md' });
      for (const res of [viaGet, viaPost]) {
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
        expect(res.body.toString()).toContain('# Heading');
        expect(res.body.toString()).toMatch(/^-\s+alpha$/m);
      }
      expect(viaGet.headers['content-disposition']).toBe('attachment; filename="notes.md"');
    });
  });

  describe.each([
    ['jpeg', 'jpg'],
    ['jpg', 'jpg'],
    ['webp', 'webp'],
    ['gif', 'gif'],
  ])('When a %s screenshot has an attachment_name', (format, extension) => {
    it(`should be named NAME.${extension}`, async () => {
      const res = await post('screenshot', { url: doc(), format, attachment_name: 'shot', viewport_width: 200, viewport_height: 100 });
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="shot.${extension}"`);
    });
  });

  describe('When metadata headers are asked for', () => {
    it('should answer them in the decided formats', async () => {
      const res = await post('screenshot', {
        url: doc(),
        format: 'png',
        image_width: 320,
        metadata_title: true,
        metadata_hash: true,
        metadata_status: true,
        metadata_image_size: true,
        metadata_headers: true,
        metadata_fonts: true,
        metadata_icon: true,
      });
      expect(res.status).toBe(200);
      expect(res.headers).toMatchObject({
        'x-service-metadata-title': encodeURIComponent('Params page'),
        'x-service-metadata-hash': createHash('sha256').update(res.body).digest('hex'),
        'x-service-metadata-status': '200',
        'x-service-metadata-image-size': '320x270',
        'x-service-metadata-icon': `${fixture.origin}/favicon.ico`,
      });
      expect(JSON.parse(String(res.headers['x-service-metadata-headers']))).toMatchObject({ 'content-type': 'text/html; charset=utf-8' });
      expect(String(res.headers['x-service-metadata-fonts']).length).toBeGreaterThan(0);
    });
  });
});

describe('errors', () => {
  describe('When several parameters are bad at once', () => {
    it('should answer one 400 naming every one of them', async () => {
      const res = await post('screenshot', {
        url: doc(),
        format: 'tiff',
        image_quality: 0,
        viewport_device: 'nokia_3310',
        block_ressources: 'images',
        geolocation_latitude: 100,
        headers: 'Host: evil',
        nonsense: true,
      });
      expect(res.status).toBe(400);
      const body = res.json<{ details: Array<{ parameter: string; message: string }> }>();
      expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'invalid_parameter' });
      expect(body.details.map((d) => d.parameter).sort()).toEqual(
        ['block_ressources', 'format', 'geolocation_latitude', 'headers', 'image_quality', 'nonsense', 'viewport_device'],
      );
      for (const d of body.details) expect(d.message).toContain(d.parameter);
    });
  });

  describe('When the click_selector matches nothing', () => {
    it('should answer 400 selector_not_found', async () => {
      const res = await post('screenshot', { url: `${fixture.origin}/button`, click_selector: '#nope' });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({
        statusCode: 400,
        code: 'selector_not_found',
        message: expect.stringContaining('click_selector'),
        details: [{ parameter: 'click_selector', message: expect.any(String) }],
      });
    });
  });

  describe('When the render outlasts its timeout', () => {
    it('should answer 500 render_timeout, and the next render should succeed', async () => {
      const res = await post('screenshot', { url: `${fixture.origin}/never`, timeout: 2 });
      expect(res.status).toBe(500);
      expect(res.json()).toMatchObject({ statusCode: 500, code: 'render_timeout' });
      expect((await post('screenshot', { url: `${fixture.origin}/button`, click_selector: '#b', format: 'png' })).status).toBe(200);
    });
  });
});

describe('GET /v1/devices', () => {
  describe('When called with a key', () => {
    it('should list every viewport_device value with its viewport, each accepted by the render routes', async () => {
      const res = await stack.call('GET', '/v1/devices', { headers: key() });
      expect(res.status).toBe(200);
      const { devices } = res.json<{ devices: Array<Record<string, unknown>> }>();
      expect(devices.length).toBeGreaterThan(100);
      expect(devices).toContainEqual(
        expect.objectContaining({ viewport_device: 'iphone_13_pro_max', name: 'iPhone 13 Pro Max', viewport_mobile: true, viewport_has_touch: true }),
      );
      const pixel5 = devices.find((d) => d.viewport_device === 'pixel_5')!;
      const shot = await post('screenshot', { url: doc(), viewport_device: 'pixel_5', format: 'png' });
      expect(await imageInfo(shot.body)).toMatchObject({
        width: Math.round(Number(pixel5.viewport_width) * Number(pixel5.device_scale_factor)),
        height: Math.round(Number(pixel5.viewport_height) * Number(pixel5.device_scale_factor)),
      });
    });
  });

  describe('When called without a key', () => {
    it('should answer 401', async () => {
      expect((await stack.call('GET', '/v1/devices')).status).toBe(401);
    });
  });
});

describe('Scale-only parameters', () => {
  describe('When an account on another plan asks for gpu_rendering or ip_location', () => {
    it.each([{ gpu_rendering: true }, { ip_location: 'us' }])('should answer 402 plan_upgrade_required to %j', async (input) => {
      const account = await admin.create('growth');
      const res = await post('screenshot', { url: doc(), ...input }, { 'x-access-key': account.accessKey });
      expect(res.status).toBe(402);
      expect(res.json()).toMatchObject({ statusCode: 402, code: 'plan_upgrade_required' });
    });
  });

  describe('When the Scale account asks for them on a deployment without GPU or country proxies', () => {
    it('should render in software saying so, and refuse an unconfigured country with a 400', async () => {
      const gpu = await post('screenshot', { url: doc(), gpu_rendering: true });
      expect(gpu.status).toBe(200);
      expect(gpu.headers['x-service-gpu']).toBe('unavailable');
      const country = await post('screenshot', { url: doc(), ip_location: 'jp' });
      expect(country.status).toBe(400);
      expect(country.json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('ip_location') });
    });
  });
});

/** Small deterministic PRNG (mulberry32), so a failing run can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const CANDIDATES: Record<string, unknown[]> = {
  format: ['png', 'jpg', 'gif', 'webp', 'md', 'html', 'bmp'],
  image_quality: [1, 50, 100, 0, 'x'],
  image_width: [50, 300, 0],
  image_height: [40, 10_001],
  full_page: [true, 'false', 'maybe'],
  full_page_scroll: [true],
  full_page_scroll_by_amount: [200, -1],
  clip_x: [0, 10, -5],
  clip_width: [50, 0],
  clip_height: [50],
  hide_selectors: ['#ad', 'h1,li', '[[[', ['li']],
  click_selector: ['h1', '#missing', '::bad('],
  viewport_device: ['iphone_13_pro_max', 'pixel_5', 'nokia'],
  viewport_width: [320, 7_681],
  device_scale_factor: [0.5, 2, 9],
  dark_mode: [true, 'yes'],
  reduced_motion: [true],
  media_type: ['print', 'tv'],
  vision_deficiency: ['deuteranopia', 'x'],
  block_annoyance: ['none', 'ads', 'tracking', 'all'],
  block_ressources: ['image,font', 'script', 'video'],
  geolocation_latitude: [10, 95],
  geolocation_longitude: [20],
  timezone: ['Europe/Paris', 'Nowhere/Land'],
  user_agent: ['FuzzBot/1.0'],
  headers: ['X-Fuzz: 1', 'Host: x', 'nocolon'],
  cookies: ['a=1', 'broken'],
  authorization: ['dXNlcjpwYXNz', 'not base64!'],
  bypass_csp: [true],
  js_enabled: [false],
  pdf_paper_format: ['a4', 'legal', 'b5'],
  pdf_landscape: [true],
  pdf_print_background: [true],
  delay: [0, 0.2, 31],
  timeout: [5, 0, 31],
  wait_until: ['load', 'networkidle2', 'idle'],
  metadata_title: [true],
  metadata_fonts: [true],
  metadata_image_size: [true],
  proxy: ['socks5://x:1'],
  capture_beyond_viewport: [true],
  omit_background: [true],
  attachment_name: ['file', 'a/b'],
  unknown_parameter: [1],
};

describe('Fuzz: random parameter sets over HTTP', () => {
  describe('When 40 random GET and POST requests are sent', () => {
    it('should never answer a 5xx other than render_timeout, and every service should stay up', async () => {
      const next = rng(3);
      const names = Object.keys(CANDIDATES);
      const outcomes: Array<{ status: number; code?: string }> = [];
      for (let i = 0; i < 40; i++) {
        const operation = (['screenshot', 'pdf', 'scrape'] as const)[i % 3]!;
        const input: Record<string, unknown> = { url: next() < 0.85 ? doc() : `${fixture.origin}/button` };
        for (let k = 1 + Math.floor(next() * 4); k > 0; k--) {
          const name = names[Math.floor(next() * names.length)]!;
          const values = CANDIDATES[name]!;
          input[name] = values[Math.floor(next() * values.length)];
        }
        if (typeof input.timeout !== 'number' || input.timeout > 8) input.timeout = 8;
        let res: HttpsResponse;
        if (next() < 0.5) {
          res = await post(operation, input);
        } else {
          const query = new URLSearchParams();
          for (const [name, value] of Object.entries(input)) {
            for (const v of Array.isArray(value) ? value : [value]) query.append(name, String(v));
          }
          res = await get(`/v1/${operation}`, query.toString());
        }
        const code = res.status >= 400 ? res.json<{ code: string }>().code : undefined;
        outcomes.push({ status: res.status, code });
        if (res.status >= 500) expect(code, `request ${i}: ${JSON.stringify(input)}`).toBe('render_timeout');
        else expect([200, 400], `request ${i}: ${JSON.stringify(input)} → ${res.status} ${code}`).toContain(res.status);
      }
      expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(3);
      expect(outcomes.filter((o) => o.status === 400).length).toBeGreaterThan(3);
      for (const p of stack.processes) expect(p.process.exitCode, p.name).toBeNull();
      const after = await post('screenshot', { url: doc(), format: 'png' });
      expect(after.status).toBe(200);
    });
  });
});
