import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageInfo, startFixtureServer, startTestStack, type FixtureServer, type TestStack } from '@app/testkit';

// The stack with its defaults: private and loopback targets refused.
let stack: TestStack;
let canary: FixtureServer;

beforeAll(async () => {
  canary = await startFixtureServer({
    '/canary.png': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end();
    },
  });
  stack = await startTestStack({ renderers: 1, env: { ALLOW_PRIVATE_TARGETS: '0' } });
});

afterAll(async () => {
  await stack?.stop();
  await canary?.close();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });

describe('SSRF guard (default configuration)', () => {
  describe.each([
    ['loopback', () => `${canary.origin}/`],
    ['localhost', () => `http://localhost:${canary.port}/`],
    ['IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${canary.port}/`],
    ['decimal IP', () => `http://2130706433:${canary.port}/`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('When the page url is %s', (_label, url) => {
    it('should answer 400 target_not_allowed without loading it', async () => {
      const res = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { url: url() } });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 400, code: 'target_not_allowed' });
      expect(canary.requests).toHaveLength(0);
    });
  });

  describe('When the page url is not http or https', () => {
    it.each(['file:///etc/passwd', 'FILE:///etc/passwd', 'ftp://127.0.0.1/', 'chrome://version', 'data:text/html,x'])(
      'should refuse %s with 400 target_not_allowed',
      async (url) => {
        const res = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { url } });
        expect(res.status).toBe(400);
        expect(res.json()).toMatchObject({ code: 'target_not_allowed', details: [{ parameter: 'url' }] });
      },
    );
  });

  describe('When the proxy is a loopback address', () => {
    const proxy = () => `http://user:secret@127.0.0.1:${canary.port}`;
    const used = async () => (await stack.call('GET', '/v1/usage', { headers: key() })).json().hits.used as number;

    it('should refuse the API call with 400 naming proxy, without reaching it', async () => {
      const res = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { url: 'http://93.184.215.14/', proxy: proxy() } });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 400, code: 'target_not_allowed', details: [{ parameter: 'proxy' }] });
      expect(canary.requests).toHaveLength(0);
    });

    it('should refuse a task with it the same way, naming query.proxy, at no cost of quota', async () => {
      const before = await used();
      const query = `url=${encodeURIComponent('http://93.184.215.14/')}&proxy=${encodeURIComponent(proxy())}`;
      const res = await stack.call('POST', '/v1/tasks', { headers: key(), json: { name: 'via loopback', api: 'screenshot', query, frequency: 'every_hour' } });
      expect(res.status, res.body.toString()).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 400, code: 'target_not_allowed', details: [{ parameter: 'query.proxy' }] });
      expect((await stack.call('GET', '/v1/tasks', { headers: key() })).json().tasks).toEqual([]);
      expect(await used()).toBe(before);
      expect(canary.requests).toHaveLength(0);
    });
  });

  describe('When the page itself requests loopback addresses', () => {
    it('should block every such request while the render goes on', async () => {
      const target = `http://127.0.0.1:${canary.port}`;
      const html = `<html><body style="margin:0;background:#fff">
        <img src="${target}/canary.png">
        <link rel="stylesheet" href="${target}/style.css">
        <iframe src="${target}/frame"></iframe>
        <script>fetch('${target}/fetch').catch(() => {}); new Image().src = '${target}/img2';</script>
        <p>page</p></body></html>`;
      const res = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { html, wait_until: ['load'] } });
      expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      expect(await imageInfo(res.body)).toMatchObject({ format: 'jpeg', width: 1280, height: 1080 });
      expect(canary.requests).toHaveLength(0);
    });
  });

  describe('When a screencast targets loopback, or its page requests loopback while it is recorded', () => {
    it('should refuse the url, and block every request of the page during the recording', async () => {
      const refused = await stack.call('GET', `/v1/screencast?url=${encodeURIComponent(`${canary.origin}/`)}`, { headers: key() });
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'target_not_allowed', details: [{ parameter: 'url' }] });
      const target = `http://127.0.0.1:${canary.port}`;
      const html = `<p>page</p><img src="${target}/canary.png">
        <script>setInterval(() => { fetch('${target}/poll').catch(() => {}); new Image().src = '${target}/img?' + Date.now(); }, 100)</script>`;
      const res = await stack.call('POST', '/v1/screencast', { headers: key(), json: { html, duration: 2, viewport_width: 320, viewport_height: 240 } });
      expect(res.status, res.body.toString().slice(0, 200)).toBe(200);
      expect(res.headers['content-type']).toBe('video/mp4');
      expect(canary.requests).toHaveLength(0);
    });
  });
});
