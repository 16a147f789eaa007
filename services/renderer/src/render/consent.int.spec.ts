import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pixelAt, startFixtureServer, until, type FixtureServer } from '@app/testkit';
import { useRenderer } from './testing/render-harness.js';

// Cookie banners of a common consent platform (markup modelled on OneTrust's, which autoconsent handles),
// hidden and opted out of by default; and a page without one, where autoconsent is never run.
let fixture: FixtureServer;
const rejected: string[] = [];
const html = (body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;background:#fff}
#onetrust-banner-sdk{position:fixed;left:0;right:0;bottom:0;height:240px;background:#1f3b8a;color:#fff}</style></head>
<body><h1>Article</h1><p>Text of the article.</p>${body}</body></html>`);
};
/** OneTrust's banner: its reject button closes the banner and records the choice, as the SDK does. */
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
    fetch('/onetrust-rejected');
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
    '/onetrust-rejected': (req, res) => {
      rejected.push(req.url ?? '');
      res.writeHead(204).end();
    },
    // Reports, once loaded, whether autoconsent was ever started in the page.
    '/plain': html(`<p id="probe"></p><script>window.addEventListener('load', () => setTimeout(() => {
      document.getElementById('probe').textContent = 'autoconsent ' + typeof window.autoconsentSendMessage; }, 50))</script>`),
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

      // A scrape and a full-page screenshot wait for it: the banner's reject button was clicked.
      for (const render of [
        () => r.render('scrape', { url: url(path), format: 'html', wait_until: 'load' }),
        () => r.render('screenshot', { url: url(path), format: 'png', wait_until: 'load', full_page: true }),
      ]) {
        const before = rejected.length;
        const result = await render();
        await until(() => rejected.length > before, 5_000, 'the reject button clicked');
        if (result.contentType === 'image/png') expect(await pixelAt(result.body, ...IN_BANNER)).toEqual([255, 255, 255]);
        else {
          expect(result.body.toString()).toContain('Text of the article.');
          expect(result.body.toString()).not.toContain('<div id="onetrust-consent-sdk">');
        }
      }
    });
  });

  describe('When the page has no cookie banner', () => {
    it('should never start autoconsent in it', async () => {
      const markup = (await r.render('scrape', { url: url('/plain'), format: 'html', wait_until: 'load', delay: 0.5 })).body.toString();
      expect(markup).toContain('autoconsent undefined');
    });
  });
});
