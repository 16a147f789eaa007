import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageInfo, startFixtureServer, startTestStack, type FixtureServer, type TestStack } from '@app/testkit';

// Calls shaped the way ScreenshotMAX's official client sends them (0 for "not set", its device
// spelling, hide/click on scrape, its device fields), against the whole stack. Comma-joined headers and
// cookies are proved where they land in the renderer's tests (params-network.int.spec.ts).
let stack: TestStack;
let fixture: FixtureServer;

const html = (body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>compat</title></head><body>${body}</body></html>`);
};

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/echo': html('<p>echo</p>'),
    '/device': html(
      '<p id="d"></p><script>document.getElementById("d").textContent = [innerWidth, innerHeight, devicePixelRatio, navigator.userAgent].join("|")</script>',
    ),
    // The clicked text is built by the script, so it is in the content only once the button was clicked.
    '/parts': html(
      '<div id="banner">BANNER-TEXT</div><p class="ad">AD-TEXT</p><main>KEPT-TEXT</main><button id="more">more</button>' +
        '<script>document.getElementById("more").onclick = () => document.querySelector("main").insertAdjacentHTML("beforeend", "<p>LOADED-" + "BY-CLICK</p>")</script>',
    ),
  });
  stack = await startTestStack({ renderers: 1, env: { ALLOW_PRIVATE_TARGETS: '1', RENDERER_CONCURRENCY: '2' } });
});

afterAll(async () => {
  await stack?.stop();
  await fixture?.close();
});

const get = (path: string, query: string) => stack.call('GET', `${path}?access_key=${encodeURIComponent(stack.demo.accessKey)}&${query}`);
const enc = encodeURIComponent;

describe('0 means not set', () => {
  describe('When every size and the timeout are 0', () => {
    it('should render with the defaults: a 1280x1080 image', async () => {
      const zeros = ['viewport_width', 'viewport_height', 'image_width', 'image_height', 'clip_width', 'clip_height', 'timeout']
        .map((n) => `${n}=0`)
        .join('&');
      const res = await get('/v1/screenshot', `url=${enc(`${fixture.origin}/echo`)}&format=png&clip_x=0&clip_y=0&${zeros}`);
      expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      expect(await imageInfo(res.body)).toEqual({ format: 'png', width: 1280, height: 1080 });
      const posted = await stack.call('POST', '/v1/screenshot', {
        headers: { 'x-access-key': stack.demo.accessKey },
        json: { url: `${fixture.origin}/echo`, format: 'png', viewport_width: 0, viewport_height: 600, timeout: 0 },
      });
      expect(await imageInfo(posted.body)).toEqual({ format: 'png', width: 1280, height: 600 });
    });
  });
});

describe('Devices', () => {
  interface Listed {
    id: string;
    name: string;
    userAgent: string;
    viewport: { width: number; height: number; deviceScaleFactor: number; isMobile: boolean; hasTouch: boolean; isLandscape: boolean };
    viewport_device: string;
  }

  describe("When GET /v1/devices is read with ScreenshotMAX's fields", () => {
    it('should give each device id, name, userAgent and viewport beside our fields', async () => {
      const res = await stack.call('GET', '/v1/devices', { headers: { 'x-access-key': stack.demo.accessKey } });
      const { devices } = res.json<{ devices: Listed[] }>();
      for (const d of devices) {
        expect(d).toMatchObject({
          id: expect.stringMatching(/^[a-z0-9_]+$/),
          name: expect.any(String),
          userAgent: expect.any(String),
          viewport: {
            width: expect.any(Number),
            height: expect.any(Number),
            deviceScaleFactor: expect.any(Number),
            isMobile: expect.any(Boolean),
            hasTouch: expect.any(Boolean),
            isLandscape: expect.any(Boolean),
          },
          viewport_device: expect.any(String),
        });
      }
      expect(devices.find((d) => d.id === 'galaxy_s9plus')).toMatchObject({ name: 'Galaxy S9+', viewport_device: 'galaxy_s9+' });
    });
  });

  describe("When viewport_device is given in ScreenshotMAX's spelling", () => {
    it("should emulate that device: the page sees its viewport, pixel ratio and user agent", async () => {
      const listed = (await stack.call('GET', '/v1/devices', { headers: { 'x-access-key': stack.demo.accessKey } }))
        .json<{ devices: Listed[] }>()
        .devices.find((d) => d.id === 'galaxy_s9plus')!;
      const res = await get('/v1/scrape', `url=${enc(`${fixture.origin}/device`)}&viewport_device=galaxy_s9plus`);
      expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      const seen = /<p id="d">([^<]*)<\/p>/.exec(res.body.toString('utf8'))![1]!.replace(/&amp;/g, '&');
      const { width, height, deviceScaleFactor } = listed.viewport;
      expect(seen).toBe([width, height, deviceScaleFactor, listed.userAgent].join('|'));
    });
  });
});

describe('hide_selectors and click_selector on scrape', () => {
  describe('When a scrape names elements to hide and one to click', () => {
    it('should take the hidden elements out of the content and read it after the click', async () => {
      const plain = (await get('/v1/scrape', `url=${enc(`${fixture.origin}/parts`)}`)).body.toString('utf8');
      expect(plain).toContain('BANNER-TEXT');
      expect(plain).not.toContain('LOADED-BY-CLICK');
      const res = await stack.call('POST', '/v1/scrape', {
        headers: { 'x-access-key': stack.demo.accessKey },
        json: { url: `${fixture.origin}/parts`, hide_selectors: '#banner,.ad', click_selector: '#more', format: 'md' },
      });
      expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      const md = res.body.toString('utf8');
      expect(md).toContain('KEPT-TEXT');
      expect(md).toContain('LOADED-BY-CLICK');
      expect(md).not.toContain('BANNER-TEXT');
      expect(md).not.toContain('AD-TEXT');
    });
  });
});
