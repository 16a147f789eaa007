import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pixelAt, startFixtureServer, type FixtureServer } from '@app/testkit';
import { BrowserPool } from '../browser/index.js';
import { poolRenderer } from './pool-renderer.js';
import { renderJob } from './render-job.js';
import { renderParams } from './testing/test-params.js';
import { startTestProxy, type TestProxy } from './testing/test-proxy.js';
import { useRenderer } from './testing/render-harness.js';

// Everything about the requests a page makes: what is sent, through where, and what is refused.
// The pool's egress goes through a recording test proxy (as it goes through the SSRF guard in
// production), which answers for any host but 127.0.0.1 itself: no request leaves the machine.
let fixture: FixtureServer;
/** Another origin, whose every answer is an authentication challenge. */
let foreign: FixtureServer;
let egress: TestProxy;
let callerProxy: TestProxy;
const USER = 'renderer';
const PASSWORD = 'pa:ss word';
const CREDENTIALS = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
const page = (body: string, headers: Record<string, string> = {}) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;background:#fff}</style></head><body>${body}</body></html>`);
};
const asset = (type: string, body = '') => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': type });
  res.end(body);
};

beforeAll(async () => {
  foreign = await startFixtureServer({
    '/challenge.png': (_req, res) => {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="foreign"', 'content-type': 'text/plain' });
      res.end('who are you');
    },
  });
  fixture = await startFixtureServer({
    '/echo': page('<p>echo</p>'),
    '/private': (req, res) => {
      if (req.headers.authorization !== `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="fixture"', 'content-type': 'text/html' });
        return res.end('<!doctype html><p>locked</p>');
      }
      page(`<p>secret content</p><img src="http://localhost:${fixture.port}/third-party.png">`)(req, res);
    },
    '/private-foreign': (req, res) => {
      if (req.headers.authorization !== CREDENTIALS) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="fixture"', 'content-type': 'text/html' });
        return res.end('<!doctype html><p>locked</p>');
      }
      page(`<p>secret content</p><img src="${foreign.origin}/challenge.png">`)(req, res);
    },
    '/assets': page(
      `<link rel="stylesheet" href="/b.css"><img src="/b.png"><script src="/b.js"></script>
       <script>fetch('/b-fetch').catch(() => {})</script>`,
    ),
    '/b.css': asset('text/css', 'p{color:#333}'),
    '/b.png': asset('image/png'),
    '/b.js': asset('text/javascript', '/* b */'),
    '/b-fetch': asset('text/plain', 'x'),
    '/csp': page('<p id="m">blocked</p><script>document.getElementById("m").textContent = "ran"</script>', {
      'content-security-policy': "script-src 'none'",
    }),
    '/consent': page(
      `<p>article</p><div id="adroll_consent_container" style="position:fixed;inset:0;background:#f00">
       We use cookies <button id="adroll_consent_accept">Accept</button>
       <button id="adroll_consent_reject" onclick="document.getElementById('adroll_consent_container').remove(); fetch('/consent-rejected')">Reject</button></div>`,
    ),
    '/consent-rejected': asset('text/plain', 'ok'),
    '/third-parties': page(
      `<script src="http://cdn.cookielaw.org/scripttemplates/otSDKStub.js"></script>
       <script src="http://securepubads.g.doubleclick.net/tag/js/gpt.js"></script>
       <script src="http://www.google-analytics.com/analytics.js"></script>
       <script src="http://cdn.example-widgets.test/widget.js"></script>`,
    ),
    '/local-file': page('<iframe src="file:///etc/passwd" style="border:0;width:100%;height:900px"></iframe>'),
    '/local-file-read': page(
      `<pre id="out"></pre><script>
       const out = document.getElementById('out');
       const say = (what) => { out.textContent += what + '\\n'; };
       fetch('file:///etc/passwd').then((r) => r.text()).then((t) => say('fetch read ' + t), () => say('fetch refused'));
       try { const x = new XMLHttpRequest(); x.open('GET', 'file:///etc/passwd', false); x.send(); say('xhr read ' + x.responseText); } catch { say('xhr refused'); }
       </script>`,
    ),
  });
  egress = await startTestProxy();
  callerProxy = await startTestProxy({ username: USER, password: PASSWORD });
});
afterAll(async () => {
  await fixture?.close();
  await foreign?.close();
  await egress?.close();
  await callerProxy?.close();
});

const r = useRenderer(() => ({
  pool: { proxyUrl: egress.url },
  renderer: {
    routing: {
      allowPrivate: true,
      ipLocationProxies: { de: `http://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${callerProxy.port}` },
    },
  },
}));
const url = (path: string) => `${fixture.origin}${path}`;
const lastRequest = (path: string) => fixture.requests.filter((q) => q.path === path).at(-1);

describe('request parameters', () => {
  describe('When headers, cookies and user_agent are given', () => {
    it('should send them with the page request', async () => {
      await r.render('scrape', {
        url: url('/echo'),
        headers: 'X-Test-One: 1; X-Test-Two: two words',
        cookies: 'session=abc; theme=dark',
        user_agent: 'RenderTest/2.0 (+fixture)',
      });
      const seen = lastRequest('/echo')!;
      expect(seen.headers).toMatchObject({ 'x-test-one': '1', 'x-test-two': 'two words', 'user-agent': 'RenderTest/2.0 (+fixture)' });
      expect(seen.headers.cookie?.split('; ').sort()).toEqual(['session=abc', 'theme=dark']);
    });
  });

  describe("When headers and cookies come comma-joined, as ScreenshotMAX's client joins a list", () => {
    it('should send the page two headers and two cookies', async () => {
      await r.render('scrape', { url: url('/echo'), headers: 'X-Comma-A: 1,X-Comma-B: 2', cookies: 'first=1,second=2' });
      const seen = lastRequest('/echo')!;
      expect(seen.headers).toMatchObject({ 'x-comma-a': '1', 'x-comma-b': '2' });
      expect(seen.headers.cookie?.split('; ').sort()).toEqual(['first=1', 'second=2']);
    });
  });

  describe('When authorization is given for a page behind basic authentication', () => {
    it('should render the page, sending the credentials to its origin only', async () => {
      expect((await r.render('scrape', { url: url('/private') })).body.toString()).toContain('locked');
      const authorization = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
      const html = (await r.render('scrape', { url: url('/private'), authorization, wait_until: 'load' })).body.toString();
      expect(html).toContain('secret content');
      const thirdParty = egress.requests.filter((q) => q.url.endsWith('/third-party.png')).at(-1);
      expect(thirdParty).toBeDefined();
      expect(thirdParty!.headers.authorization).toBeUndefined();
    });
  });

  describe('When proxy is given', () => {
    it('should load the page through that proxy, answering its authentication challenge', async () => {
      const proxy = `http://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${callerProxy.port}`;
      const egressBefore = egress.seen.length;
      const html = (await r.render('scrape', { url: url('/echo'), proxy })).body.toString();
      expect(html).toContain('<p>echo</p>');
      expect(callerProxy.seen).toContain(url('/echo'));
      // The test proxy forwards only requests that carry its credentials.
      expect(lastRequest('/echo')!.headers['x-via-test-proxy']).toBe('1');
      expect(egress.seen.slice(egressBefore)).not.toContain(url('/echo'));
    });
  });

  describe('When a page reached through a proxy with credentials asks for authentication', () => {
    it('should never answer it with the proxy credentials', async () => {
      const proxy = `http://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${callerProxy.port}`;
      const before = fixture.requests.length;
      const html = (await r.render('scrape', { url: url('/private'), proxy })).body.toString();
      expect(html).toContain('locked');
      const asked = fixture.requests.slice(before).filter((q) => q.path === '/private');
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.map((q) => q.headers.authorization)).not.toContain(CREDENTIALS);
    });
  });

  describe('When another origin the page loads asks for authentication', () => {
    it('should never answer it with the authorization credentials', async () => {
      const authorization = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
      const html = (await r.render('scrape', { url: url('/private-foreign'), authorization, wait_until: 'load' })).body.toString();
      expect(html).toContain('secret content');
      const asked = foreign.requests.filter((q) => q.path === '/challenge.png');
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.map((q) => q.headers.authorization)).not.toContain(CREDENTIALS);
    });
  });

  describe('When ip_location is given', () => {
    it('should go through the proxy configured for the country, and be a 400 where none is', async () => {
      const before = callerProxy.seen.length;
      await r.render('scrape', { url: url('/echo?via=de'), ip_location: 'de' });
      expect(callerProxy.seen.slice(before)).toContain(url('/echo?via=de'));
      await expect(r.render('scrape', { url: url('/echo'), ip_location: 'jp' })).rejects.toMatchObject({
        code: 'invalid_parameter',
        details: [{ parameter: 'ip_location' }],
      });
    });
  });

  describe('When block_ressources names resource types', () => {
    it('should keep those requests from ever reaching the server', async () => {
      const hits = () => ({ css: fixture.hits('/b.css'), png: fixture.hits('/b.png'), js: fixture.hits('/b.js'), fetch: fixture.hits('/b-fetch') });
      const before = hits();
      await r.render('screenshot', { url: url('/assets'), block_ressources: 'image,script', wait_until: 'networkidle0' });
      const after = hits();
      expect(after.css).toBe(before.css + 1);
      expect(after.png).toBe(before.png);
      expect(after.js).toBe(before.js);
      expect(after.fetch).toBe(before.fetch + 1);
      await r.render('screenshot', { url: url('/assets'), block_ressources: ['fetch', 'stylesheet'], wait_until: 'networkidle0' });
      expect(hits()).toMatchObject({ css: after.css, png: after.png + 1, js: after.js + 1, fetch: after.fetch });
    });
  });

  describe('When bypass_csp is set on a page whose policy forbids its scripts', () => {
    it('should let them run', async () => {
      expect((await r.render('scrape', { url: url('/csp') })).body.toString()).toContain('>blocked<');
      expect((await r.render('scrape', { url: url('/csp'), bypass_csp: true })).body.toString()).toContain('>ran<');
    });
  });
});

describe('block_annoyance', () => {
  describe('When a page shows a known cookie consent popup', () => {
    it('should hide it by default (cookies_banner) and show it with none', async () => {
      const shown = await r.render('screenshot', { url: url('/consent'), format: 'png', block_annoyance: 'none' });
      expect(await pixelAt(shown.body, 640, 540)).toEqual([255, 0, 0]);
      const hidden = await r.render('screenshot', { url: url('/consent'), format: 'png' });
      expect(await pixelAt(hidden.body, 640, 540)).toEqual([255, 255, 255]);
      // A render of the whole document waits for the opt-out: its reject button clicked (which removes the
      // popup from the DOM), not only the popup hidden. A viewport screenshot, the popup already out of its
      // image, does not wait for it.
      expect((await r.render('scrape', { url: url('/consent'), block_annoyance: 'none' })).body.toString()).toContain('adroll_consent_container');
      expect((await r.render('scrape', { url: url('/consent') })).body.toString()).not.toContain('adroll_consent_container');
    });
  });

  describe('When a page loads consent, ad and analytics scripts from third parties', () => {
    it.each([
      ['none', []],
      ['cookies_banner', ['cdn.cookielaw.org']],
      ['ads', ['cdn.cookielaw.org', 'securepubads.g.doubleclick.net']],
      ['tracking', ['cdn.cookielaw.org', 'securepubads.g.doubleclick.net', 'www.google-analytics.com']],
    ])('with %s should block exactly %j', async (level, blocked) => {
      const before = egress.seen.length;
      await r.render('screenshot', { url: url(`/third-parties?level=${level}`), block_annoyance: level, wait_until: 'load' });
      const hosts = new Set(egress.seen.slice(before).map((u) => new URL(u).hostname));
      for (const host of ['cdn.cookielaw.org', 'securepubads.g.doubleclick.net', 'www.google-analytics.com', 'cdn.example-widgets.test']) {
        expect(hosts.has(host), host).toBe(!blocked.includes(host));
      }
    });
  });
});

describe('SSRF guard inside the page', () => {
  describe('When the page frames a local file', () => {
    // block_annoyance=none: no parameter decides about single requests, so none is paused and Chromium's own refusal holds.
    it.each(['cookies_banner', 'none'])('should not load it with block_annoyance=%s: the frame stays empty', async (blockAnnoyance) => {
      const out = await r.render('screenshot', { url: url('/local-file'), format: 'png', viewport_width: 400, viewport_height: 300, block_annoyance: blockAnnoyance });
      for (const [x, y] of [[10, 10], [200, 20], [50, 150], [300, 250]] as const) expect(await pixelAt(out.body, x, y)).toEqual([255, 255, 255]);
    });
  });

  describe('When a script of the page reads a local file, with no parameter that pauses requests', () => {
    it('should be refused by the browser', async () => {
      const out = await r.render('scrape', { url: url('/local-file-read'), block_annoyance: 'none', wait_for_selector: '#out', delay: 0.3 });
      const said = /<pre id="out">([\s\S]*?)<\/pre>/.exec(out.body.toString())?.[1] ?? '';
      expect(said.split('\n').filter(Boolean).sort()).toEqual(['fetch refused', 'xhr refused']);
    });
  });

  describe('When the page url itself is not http(s)', () => {
    it.each(['file:///etc/passwd', 'FILE:///etc/passwd', 'ftp://127.0.0.1/', 'chrome://version'])('should refuse %s with target_not_allowed', async (target) => {
      const job = r.pool().run((p) => renderJob(p, 'scrape', renderParams({ url: target }), { timeoutMs: 5_000 }), { timeoutMs: 5_000 });
      await expect(job).rejects.toMatchObject({ code: 'target_not_allowed', details: [{ parameter: 'url' }] });
    });
  });
});

describe('gpu_rendering', () => {
  describe('When the deployment has no GPU flags', () => {
    it('should render in software and say so in X-Service-Gpu', async () => {
      const out = await r.render('screenshot', { url: url('/echo'), gpu_rendering: true });
      expect(out.headers['X-Service-Gpu']).toBe('unavailable');
      expect((await r.render('screenshot', { url: url('/echo') })).headers['X-Service-Gpu']).toBeUndefined();
    });
  });

  describe('When the browsers are launched with GPU flags on a machine without a usable GPU', () => {
    let pool: BrowserPool;
    beforeAll(async () => {
      pool = new BrowserPool({ browsers: 1, concurrency: 1, maxQueue: 2, restartAfter: 0, warmContexts: 0, gpu: true });
      await pool.start();
    });
    afterAll(() => pool?.stop());

    it('should still render and report whether the GPU was really used', async () => {
      const out = await poolRenderer(pool, { gpu: { enabled: true } }).render('screenshot', renderParams({ url: url('/echo'), gpu_rendering: true }), 10_000);
      expect(['enabled', 'unavailable']).toContain(out.headers['X-Service-Gpu']);
      expect(out.body.length).toBeGreaterThan(0);
    });
  });
});
