import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEgressProxy, type EgressProxy } from '@app/net-guard';
import { pixelAt, startFixtureServer, type FixtureServer } from '@app/testkit';
import { useRenderer } from './testing/render-harness.js';

// styles and scripts: proved on the pixels, on what a scrape reads, and on what a loopback canary received.
let fixture: FixtureServer;
let canary: FixtureServer;
let strict: EgressProxy;
let open: EgressProxy;

/** A red page whose Content-Security-Policy allows no script at all and only its own (nonce) style. */
const LOCKED_PAGE = `<!doctype html><html><head><style nonce="t3st">html,body{margin:0;height:100%;background:#f00}</style></head><body><p id="text">original</p></body></html>`;

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/locked': (_req, res) => {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': "default-src 'none'; style-src 'nonce-t3st'",
      });
      res.end(LOCKED_PAGE);
    },
  });
  canary = await startFixtureServer({ '/fetched': (_req, res) => res.end('ok'), '/styled.png': (_req, res) => res.end('') });
  strict = await startEgressProxy({ allowPrivate: false });
  open = await startEgressProxy({ allowPrivate: true });
});
afterAll(async () => {
  await Promise.all([fixture?.close(), canary?.close(), strict?.close(), open?.close()]);
});

const small = { viewport_width: 200, viewport_height: 100, format: 'png' };

describe('styles and scripts', () => {
  const r = useRenderer();
  const url = (path: string) => `${fixture.origin}${path}`;

  describe('When styles are given, on a page whose CSP forbids them', () => {
    it('should paint the page with them', async () => {
      const out = await r.render('screenshot', { url: url('/locked'), styles: 'html, body { background: #00f !important }', ...small });
      expect(await pixelAt(out.body, 100, 50)).toEqual([0, 0, 255]);
    });
  });

  describe('When scripts are given, on a page whose CSP forbids them', () => {
    it('should run them after the page loaded, before the capture', async () => {
      const out = await r.render('screenshot', { url: url('/locked'), scripts: "document.body.style.background = '#0f0'", ...small });
      expect(await pixelAt(out.body, 100, 50)).toEqual([0, 255, 0]);
    });

    it('should await the promise a script ends with', async () => {
      const scripts = "new Promise((done) => setTimeout(() => { document.body.style.background = '#0f0'; done(); }, 1000))";
      const out = await r.render('screenshot', { url: url('/locked'), scripts, ...small });
      expect(await pixelAt(out.body, 100, 50)).toEqual([0, 255, 0]);
    });

    it('should run them before a scrape reads the page, whatever the script ends with (an element here)', async () => {
      const out = await r.render('scrape', { url: url('/locked'), scripts: "var p = document.getElementById('text'); p.textContent = 'changed by script'; p" });
      expect(out.body.toString()).toContain('changed by script');
      expect(out.body.toString()).not.toContain('original');
    });

    it('should answer 400 naming scripts when the script throws', async () => {
      await expect(r.render('screenshot', { url: url('/locked'), scripts: "throw new TypeError('no such widget')", ...small })).rejects.toMatchObject({
        code: 'invalid_parameter',
        details: [{ parameter: 'scripts', message: 'scripts threw an error in the page: TypeError: no such widget' }],
      });
    });
  });
});

/** A page given as html (no address of its own) whose style and script ask the canary for something. */
const reachCanary = () => ({
  html: '<!doctype html><p>hello</p>',
  styles: `body { background-image: url(${canary.origin}/styled.png) }`,
  scripts: `fetch('${canary.origin}/fetched').then((r) => r.text(), () => 'refused')`,
  delay: 1,
  ...small,
});

describe('What styles and scripts fetch passes the egress guard', () => {
  describe('When private targets are not allowed (the service as deployed)', () => {
    const r = useRenderer(() => ({ pool: { proxyUrl: strict.url }, renderer: { routing: { allowPrivate: false, ipLocationProxies: {} } } }));

    it('should refuse their requests to a loopback canary: the canary gets nothing', async () => {
      const before = canary.requests.length;
      const blockedBefore = strict.stats().blocked;
      await r.render('screenshot', reachCanary());
      expect(canary.requests.length - before).toBe(0);
      expect(strict.stats().blocked - blockedBefore).toBeGreaterThanOrEqual(2);
    });
  });

  describe('When private targets are allowed (the same render, the guard open)', () => {
    const r = useRenderer(() => ({ pool: { proxyUrl: open.url } }));

    it('should reach the canary with both (so the test above can fail)', async () => {
      const before = { fetched: canary.hits('/fetched'), styled: canary.hits('/styled.png') };
      await r.render('screenshot', reachCanary());
      expect(canary.hits('/fetched') - before.fetched).toBe(1);
      expect(canary.hits('/styled.png') - before.styled).toBe(1);
    });
  });
});
