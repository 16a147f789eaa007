import { existsSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '@app/testkit';
import { fixturePage } from './testing/fixture-page.js';
import { useRenderer } from './testing/render-harness.js';

// The renderer prefers Debian's headless shell (chromium-headless-shell) to the full browser in its headless
// mode: the same Blink and Skia at half the CPU a render. A render must not change with the build: the same
// page renders to the same pixels, and its scrape to the same document, in both.
const SHELL = '/usr/lib/chromium/chromium-headless-shell';
const FULL = '/usr/lib/chromium/chromium';
const both = existsSync(SHELL) && existsSync(FULL);
if (!both) console.warn(`[headless-shell] skipped: needs both ${SHELL} and ${FULL}`);

const PAGE = `<h1 style="color:#2a5db0">Quarterly report</h1>
<p style="font:16px serif">Serif text, <em>italic</em>, <b>bold</b> and a link: <a href="#">more</a>.</p>
<svg width="320" height="120">${Array.from({ length: 8 }, (_, i) => `<rect x="${i * 40 + 5}" y="${100 - i * 10}" width="30" height="${i * 10 + 20}" fill="#2a5db0"/>`).join('')}<circle cx="300" cy="20" r="15" fill="tomato"/></svg>
<div style="width:400px;height:60px;background:linear-gradient(90deg,#fff,#f80);border-radius:12px;box-shadow:0 4px 10px #0006"></div>
<table style="border-collapse:collapse">${Array.from({ length: 6 }, (_, r) => `<tr>${Array.from({ length: 5 }, (_, c) => `<td style="border:1px solid #ccc;padding:4px">${r * 5 + c}</td>`).join('')}</tr>`).join('')}</table>
<canvas id="c" width="200" height="80"></canvas><script>const x = document.getElementById('c').getContext('2d'); x.font = '20px sans-serif'; x.fillText('canvas text', 10, 40); x.strokeRect(5, 5, 190, 70);</script>`;

let fixture: FixtureServer;
beforeAll(async () => {
  fixture = await startFixtureServer({
    '/page': fixturePage(PAGE, 'body{font-family:sans-serif;margin:24px}'),
    '/locked': (_req, res) => {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="fixture"', 'content-type': 'text/html' });
      res.end('<!doctype html><p>please sign in</p>');
    },
  });
});
afterAll(() => fixture?.close());

const shell = useRenderer(() => ({ pool: { executablePath: SHELL } }));
const full = useRenderer(() => ({ pool: { executablePath: FULL } }));
const decoded = async (png: Buffer) => sharp(png).raw().toBuffer({ resolveWithObject: true });

describe.skipIf(!both)('The headless shell and the full browser', () => {
  describe('When both render the same page', () => {
    it('should run each pool on its own build', async () => {
      const binary = (r: typeof shell) => r.pool().run(async (page) => page.browser().process()?.spawnfile, { timeoutMs: 10_000 });
      expect([await binary(shell), await binary(full)]).toEqual([SHELL, FULL]);
    });

    it.each([
      ['a png screenshot', { format: 'png' }],
      ['a full-page png at device scale 2', { format: 'png', full_page: true, device_scale_factor: 2, viewport_width: 600, viewport_height: 400 }],
    ])('should give %s with exactly the same pixels', async (_what, params) => {
      const input = { url: `${fixture.origin}/page`, block_annoyance: 'none', ...params };
      const [a, b] = await Promise.all([shell.render('screenshot', input), full.render('screenshot', input)]);
      const [pa, pb] = await Promise.all([decoded(a.body), decoded(b.body)]);
      expect(pa.info).toEqual(pb.info);
      expect(pa.data.equals(pb.data)).toBe(true);
    });

    // The shell renders an unanswered challenge's page by itself; the full browser needs the challenge answered (empty credentials).
    it.each(['none', 'cookies_banner'])('should render the 401 page of a site behind authentication, with block_annoyance=%s', async (blockAnnoyance) => {
      const input = { url: `${fixture.origin}/locked`, block_annoyance: blockAnnoyance };
      for (const out of await Promise.all([shell.render('scrape', input), full.render('scrape', input)])) {
        expect(out.body.toString()).toContain('please sign in');
        expect(out.pageStatus).toBe(401);
      }
    });

    it('should scrape the same document', async () => {
      const input = { url: `${fixture.origin}/page`, block_annoyance: 'none' };
      const [a, b] = await Promise.all([shell.render('scrape', input), full.render('scrape', input)]);
      expect(a.body.toString()).toContain('Quarterly report');
      expect(a.body.toString()).toBe(b.body.toString());
    });
  });
});
