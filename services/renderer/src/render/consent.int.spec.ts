import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pixelAt, startFixtureServer, type FixtureServer } from '@app/testkit';
import { useRenderer } from './testing/render-harness.js';

// Cookie banners of a common consent platform (markup modelled on OneTrust's, which autoconsent handles),
// hidden and opted out of by default; and a page without one, where autoconsent is never run.
let fixture: FixtureServer;
const html = (body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;background:#fff}
#onetrust-banner-sdk{position:fixed;left:0;right:0;bottom:0;height:240px;background:#1f3b8a;color:#fff}</style></head>
<body><h1>Article</h1><p>Text of the article.</p>${body}</body></html>`);
};
/**
 * OneTrust's banner: its reject button closes the banner and, where a render can see it, marks the page
 * (a green band at its top): the opt-out is proved by what the render returns.
 */
const BANNER = `<div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk" class="otFlat" role="region" aria-label="Cookie banner">
<div id="onetrust-policy"><p id="onetrust-policy-text">We use cookies to improve your experience.</p></div>
<div id="onetrust-button-group-parent"><div id="onetrust-button-group">
<button id="onetrust-pc-btn-handler">Cookie settings</button>
<button id="onetrust-reject-all-handler">Reject all</button>
<button id="onetrust-accept-btn-handler">Accept all cookies</button></div></div></div></div>`;
const SDK = `<script>
window.OneTrust = { version: 'fixture' };
function otBind() {
  document.getElementById('onetrust-reject-all-handler').addEventListener('click', () => {
    document.getElementById('onetrust-consent-sdk').remove();
    const mark = document.createElement('div');
    mark.id = 'rejected' + '-mark'; // spelled apart: the scrape's markup holds this script too
    mark.style.cssText = 'height:40px;background:#00aa00';
    document.body.prepend(mark);
  });
}
</script>`;

beforeAll(async () => {
  fixture = await startFixtureServer({
    // The banner in the page's markup.
    '/onetrust': html(`${SDK}${BANNER}<script>otBind()</script>`),
    // The banner added by the SDK's script once the document is parsed, as OneTrust's stub does.
    '/onetrust-late': html(
      `${SDK}<script>document.addEventListener('DOMContentLoaded', () => {
        document.body.insertAdjacentHTML('beforeend', ${JSON.stringify(BANNER)}); otBind(); })</script>`,
    ),
    // The banner before the SDK's global: its element, hidden by the prehide styles, is what is found.
    '/onetrust-banner-first': html(`${BANNER}${SDK}<script>otBind()</script>`),
    // Reports, once loaded, whether autoconsent was ever started in the page.
    '/plain': html(`<p id="probe"></p><script>window.addEventListener('load', () => setTimeout(() => {
      document.getElementById('probe').textContent = 'autoconsent ' + typeof window.autoconsentSendMessage; }, 50))</script>`),
    // The same report, later and also to the parent: for URLs a site-specific rule is for (Sourcepoint's
    // message frames carry a message_id), in the page itself and in a frame of another page.
    // The frame asks every 100 ms from its load for up to 2 s (a loaded machine runs the handler later), and
    // reports once autoconsent is there or the time is up.
    '/sp-message': html(`<p id="probe"></p><script>window.addEventListener('load', () => { const until = Date.now() + 2000;
      const ask = () => { const type = typeof window.autoconsentSendMessage;
        if (type !== 'function' && Date.now() < until) return setTimeout(ask, 100);
        const report = 'autoconsent ' + type;
        document.getElementById('probe').textContent = report; parent.postMessage(report, '*'); };
      setTimeout(ask, 100); })</script>`),
    '/sp-framed': html(`<p id="probe"></p><iframe src="/sp-message?message_id=1234"></iframe>
      <script>window.addEventListener('message', (e) => { document.getElementById('probe').textContent = 'frame: ' + e.data; })</script>`),
  });
});
afterAll(() => fixture?.close());

const r = useRenderer();
const url = (path: string) => `${fixture.origin}${path}`;
/** A point inside the banner (the bottom 240 px of the default 1280x1080 viewport). */
const IN_BANNER = [640, 1000] as const;

describe('block_annoyance cookies_banner (the default)', () => {
  describe.each(['/onetrust', '/onetrust-late'])('When the page %s shows a OneTrust cookie banner', (path) => {
    it('should show it with none, and by default opt out of it: gone from the image and the DOM', async () => {
      const shown = await r.render('screenshot', { url: url(path), format: 'png', block_annoyance: 'none', wait_until: 'load' });
      expect(await pixelAt(shown.body, ...IN_BANNER)).toEqual([0x1f, 0x3b, 0x8a]);

      // A viewport screenshot does not wait for the opt-out: the prehide styles keep the banner out of it.
      const hidden = await r.render('screenshot', { url: url(path), format: 'png', wait_until: 'load' });
      expect(await pixelAt(hidden.body, ...IN_BANNER)).toEqual([255, 255, 255]);

      // A scrape and a full-page screenshot wait for it: the banner's reject button was clicked before
      // the page was read (its mark in the DOM, in the image).
      const scraped = (await r.render('scrape', { url: url(path), format: 'html', wait_until: 'load' })).body.toString();
      expect(scraped).toContain('Text of the article.');
      expect(scraped).toContain('<div id="rejected-mark"');
      expect(scraped).not.toContain('<div id="onetrust-consent-sdk">');
      const page = await r.render('screenshot', { url: url(path), format: 'png', wait_until: 'load', full_page: true });
      expect(await pixelAt(page.body, 640, 20)).toEqual([0x00, 0xaa, 0x00]);
      expect(await pixelAt(page.body, ...IN_BANNER)).toEqual([255, 255, 255]);
    });
  });

  describe('When a viewport screenshot has a banner the prehide styles hide from the first paint', () => {
    it('should leave it hidden without running the opt-out, which would change the page', async () => {
      // With a second to spare, an opt-out would have clicked "Reject all" and marked the page at its top.
      const shot = await r.render('screenshot', { url: url('/onetrust-banner-first'), format: 'png', wait_until: 'load', delay: 1 });
      expect(await pixelAt(shot.body, ...IN_BANNER)).toEqual([255, 255, 255]);
      expect(await pixelAt(shot.body, 640, 20)).toEqual([255, 255, 255]);
      // A full-page screenshot of the same page runs it.
      const page = await r.render('screenshot', { url: url('/onetrust-banner-first'), format: 'png', wait_until: 'load', full_page: true });
      expect(await pixelAt(page.body, 640, 20)).toEqual([0x00, 0xaa, 0x00]);
    });
  });

  describe('When the page has no cookie banner', () => {
    it('should never start autoconsent in it', async () => {
      const markup = (await r.render('scrape', { url: url('/plain'), format: 'html', wait_until: 'load', delay: 0.5 })).body.toString();
      expect(markup).toContain('autoconsent undefined');
    });
  });

  describe("When a frame's URL is one a site-specific rule is for", () => {
    it('should start autoconsent in the page itself', async () => {
      const markup = (await r.render('scrape', { url: url('/sp-message?message_id=1234'), format: 'html', wait_until: 'load', delay: 2.5 })).body.toString();
      expect(markup).toContain('autoconsent function');
    });

    it('should start autoconsent in that frame of another page', async () => {
      const markup = (await r.render('scrape', { url: url('/sp-framed'), format: 'html', wait_until: 'load', delay: 2.5 })).body.toString();
      expect(markup).toContain('frame: autoconsent function');
    });

    it('should not start it for the same page without the URL the rule is for', async () => {
      const markup = (await r.render('scrape', { url: url('/sp-message'), format: 'html', wait_until: 'load', delay: 2.5 })).body.toString();
      expect(markup).toContain('autoconsent undefined');
    });
  });
});
