import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, until, type FixtureServer } from '@app/testkit';
import { readPdf } from './testing/pdf-reader.js';
import { useRenderer } from './testing/render-harness.js';

// PDF and scrape parameters, metadata headers, waiting and time limits, proved on real output.
let fixture: FixtureServer;
const held: ServerResponse[] = [];
const page = (body: string, style = '', head = '') => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-fixture-header': 'present' });
  res.end(`<!doctype html><html><head><meta charset="utf-8">${head}<style>html,body{margin:0}${style}</style></head><body>${body}</body></html>`);
};
const later = (ms: number, status: number, body: string, type = 'text/plain') => (_req: IncomingMessage, res: ServerResponse) =>
  void setTimeout(() => {
    if (!res.destroyed) res.writeHead(status, { 'content-type': type }).end(body);
  }, ms);

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/doc': page('<h1>Report</h1><p>Hello <a href="/x">link</a></p><ul><li>one</li><li>two</li></ul>', '', '<title>Café – ünïcode</title><link rel="icon" href="/favicon.png">'),
    '/red': page('<p>red</p>', 'html,body{background:#ff0000}'),
    '/long': page('<div style="height:5000px">long</div>'),
    '/banner': page('<div id="banner" style="position:fixed;inset:0;background:#ff0000"></div>', 'html,body{background:#fff}'),
    '/click': page('<button id="go" onclick="document.body.style.background=\'#00ff00\'">go</button>', 'html,body{background:#fff;height:100%}'),
    '/scripted': page('<div id="x">static</div><script>document.getElementById("x").textContent = "from script"</script>'),
    '/consent-pending': page(
      '<p>article</p><div class="acris-cookie-consent is--modal" data-acris-cookie-consent style="position:fixed;inset:0;background:#f00">We use cookies</div>',
    ),
    '/sans': page('<p style="font-family:sans-serif">plain text</p>'),
    '/sans-mono': page('<p style="font-family:sans-serif">plain text</p><pre style="font-family:monospace">code text</pre>'),
    '/slow-image.png': later(1_500, 200, '', 'image/png'),
    '/onload': page('<img src="/slow-image.png"><script>addEventListener("load", () => document.title = "loaded")</script>', '', '<title>loading</title>'),
    '/slow-xhr': later(800, 200, 'xhr-answer'),
    '/hang': (_req, res) => void held.push(res),
    '/idle0': page('<p id="m">waiting</p><script>addEventListener("load", () => fetch("/slow-xhr").then(r => r.text()).then(t => document.getElementById("m").textContent = t))</script>'),
    '/idle2': page('<p id="m">waiting</p><script>addEventListener("load", () => { fetch("/hang").catch(() => {}); fetch("/hang").catch(() => {}); fetch("/slow-xhr").then(r => r.text()).then(t => document.getElementById("m").textContent = t) })</script>'),
    '/timer': page('<p id="m">before</p><script>setTimeout(() => document.getElementById("m").textContent = "after", 1000)</script>'),
    '/never': later(20_000, 200, 'late', 'text/html'),
    '/where': page(
      `<p id="tz"></p><p id="geo">none</p><script>
        document.getElementById('tz').textContent = Intl.DateTimeFormat().resolvedOptions().timeZone + ' ' + new Date(0).getHours();
        navigator.geolocation.getCurrentPosition((p) => document.getElementById('geo').textContent = p.coords.latitude + ',' + p.coords.longitude + ',' + p.coords.accuracy, (e) => document.getElementById('geo').textContent = 'error ' + e.code);
      </script>`,
    ),
  });
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await fixture?.close();
});

const r = useRenderer();
const url = (path: string) => `${fixture.origin}${path}`;
const scrape = async (input: Record<string, unknown>) => (await r.render('scrape', input)).body.toString('utf8');

// Real sheet sizes in points (1/72 in), width x height as the format is named: ANSI in inches, ISO 216
// in millimetres (ledger is the tabloid sheet lying wide). pdf_landscape turns the sheet.
const mm = (v: number) => (v / 25.4) * 72;
const PAPER: Record<string, [number, number]> = {
  letter: [8.5 * 72, 11 * 72],
  legal: [8.5 * 72, 14 * 72],
  tabloid: [11 * 72, 17 * 72],
  ledger: [17 * 72, 11 * 72],
  a0: [mm(841), mm(1189)],
  a1: [mm(594), mm(841)],
  a2: [mm(420), mm(594)],
  a3: [mm(297), mm(420)],
  a4: [mm(210), mm(297)],
  a5: [mm(148), mm(210)],
  a6: [mm(105), mm(148)],
};

describe('pdf parameters', () => {
  describe.each(Object.entries(PAPER))('When pdf_paper_format is %s', (format, [width, height]) => {
    it('should print on pages of its real size, turned by pdf_landscape', async () => {
      const portrait = await readPdf((await r.render('pdf', { url: url('/doc'), pdf_paper_format: format })).body);
      const landscape = await readPdf((await r.render('pdf', { url: url('/doc'), pdf_paper_format: format, pdf_landscape: true })).body);
      expect(portrait.pages[0]!.width).toBeCloseTo(width, -0.5);
      expect(portrait.pages[0]!.height).toBeCloseTo(height, -0.5);
      expect(landscape.pages[0]!.width).toBeCloseTo(height, -0.5);
      expect(landscape.pages[0]!.height).toBeCloseTo(width, -0.5);
    });
  });

  describe('When the page is longer than one sheet', () => {
    it('should print several pages, and one page of the clip size with clip_*', async () => {
      const long = await readPdf((await r.render('pdf', { url: url('/long') })).body);
      expect(long.pages.length).toBeGreaterThan(4);
      const clipped = await readPdf((await r.render('pdf', { url: url('/long'), clip_x: 10, clip_y: 20, clip_width: 400, clip_height: 300 })).body);
      expect(clipped.pages).toHaveLength(1);
      expect(clipped.pages[0]!.width).toBeCloseTo(400 * 0.75, 0);
      expect(clipped.pages[0]!.height).toBeCloseTo(300 * 0.75, 0);
    });
  });

  describe('When pdf_print_background is set', () => {
    it('should paint the page background only then', async () => {
      const red = '1 0 0 rg';
      expect((await readPdf((await r.render('pdf', { url: url('/red') })).body)).content).not.toContain(red);
      expect((await readPdf((await r.render('pdf', { url: url('/red'), pdf_print_background: true })).body)).content).toContain(red);
    });
  });

  describe('When hide_selectors and click_selector are given', () => {
    it('should hide and click before printing', async () => {
      const banner = await readPdf((await r.render('pdf', { url: url('/banner'), pdf_print_background: true })).body);
      const hidden = await readPdf((await r.render('pdf', { url: url('/banner'), pdf_print_background: true, hide_selectors: '#banner' })).body);
      expect(banner.content).toContain('1 0 0 rg');
      expect(hidden.content).not.toContain('1 0 0 rg');
      const clicked = await readPdf((await r.render('pdf', { url: url('/click'), pdf_print_background: true, click_selector: '#go' })).body);
      expect(clicked.content).toContain('0 1 0 rg');
      await expect(r.render('pdf', { url: url('/click'), click_selector: '.nothing' })).rejects.toMatchObject({ code: 'selector_not_found' });
    });
  });
});

describe('scrape parameters', () => {
  describe('When format is md', () => {
    it('should return Markdown of the page', async () => {
      const out = await r.render('scrape', { url: url('/doc'), format: 'md' });
      expect(out).toMatchObject({ contentType: 'text/markdown; charset=utf-8', extension: 'md' });
      const md = out.body.toString('utf8');
      expect(md).toContain('# Report');
      expect(md).toContain(`Hello [link](${url('/x')})`.replace(url('/x'), '/x'));
      expect(md).toMatch(/^-\s+one$/m);
      expect(md).not.toContain('<');
    });
  });

  describe('When hide_selectors and click_selector are given', () => {
    it('should click, then remove the hidden elements from the content read', async () => {
      expect(await scrape({ url: url('/banner') })).toContain('id="banner"');
      expect(await scrape({ url: url('/banner'), hide_selectors: '#banner' })).not.toContain('id="banner"');
      expect(await scrape({ url: url('/click'), click_selector: '#go' })).toContain('rgb(0, 255, 0)');
      await expect(r.render('scrape', { url: url('/banner'), hide_selectors: ['#banner', 'div[[['] })).rejects.toMatchObject({
        code: 'invalid_parameter',
        details: [{ parameter: 'hide_selectors' }],
      });
    });
  });

  describe('When cookie banners are handled (block_annoyance cookies_banner, the default)', () => {
    it("should read the page's own markup, without the styles autoconsent adds, even while it is still opting out", async () => {
      // This popup's opt-out waits for a button the page never shows: the render goes on after 2 s with
      // autoconsent's prehide styles still in the document. They are not the page's content.
      const pending = await scrape({ url: url('/consent-pending') });
      expect(pending).toContain('<p>article</p>');
      expect(pending).toContain('class="acris-cookie-consent is--modal"');
      expect(pending).not.toContain('autoconsent');
      // A page without a popup: the same markup as with no banner handling, however soon it is read.
      const plain = await scrape({ url: url('/doc'), block_annoyance: 'none' });
      for (let i = 0; i < 4; i++) expect(await scrape({ url: url('/doc') })).toBe(plain);
    });
  });

  describe('When js_enabled is false', () => {
    it('should return the markup without running the scripts', async () => {
      expect(await scrape({ url: url('/scripted') })).toContain('<div id="x">from script</div>');
      expect(await scrape({ url: url('/scripted'), js_enabled: false })).toContain('<div id="x">static</div>');
    });
  });

  describe('When timezone and geolocation are given', () => {
    it('should let the page see them', async () => {
      const html = await scrape({
        url: url('/where'),
        timezone: 'Asia/Tokyo',
        geolocation_latitude: 48.8584,
        geolocation_longitude: 2.2945,
        geolocation_accuracy: 25,
        wait_until: 'load',
        delay: 0.3,
      });
      expect(html).toContain('<p id="tz">Asia/Tokyo 9</p>');
      expect(html).toContain('<p id="geo">48.8584,2.2945,25</p>');
      const plain = await scrape({ url: url('/where'), timezone: 'America/New_York', delay: 0.3 });
      expect(plain).toContain('<p id="tz">America/New_York 19</p>');
      expect(plain).toContain('<p id="geo">error 1</p>');
    });
  });
});

describe('metadata headers', () => {
  describe('When every metadata header is asked for', () => {
    it('should add title, icon, hash, status, headers, fonts and image size in the decided formats', async () => {
      const out = await r.render('screenshot', {
        url: url('/doc'),
        metadata_title: true,
        metadata_icon: true,
        metadata_hash: true,
        metadata_status: true,
        metadata_headers: true,
        metadata_fonts: true,
        metadata_image_size: true,
      });
      expect(out.headers['X-Service-Metadata-Title']).toBe(encodeURIComponent('Café – ünïcode'));
      expect(out.headers['X-Service-Metadata-Icon']).toBe(url('/favicon.png'));
      expect(out.headers['X-Service-Metadata-Hash']).toBe(createHash('sha256').update(out.body).digest('hex'));
      expect(out.headers['X-Service-Metadata-Status']).toBe('200');
      expect(JSON.parse(out.headers['X-Service-Metadata-Headers']!)).toMatchObject({ 'x-fixture-header': 'present' });
      expect(out.headers['X-Service-Metadata-Image-Size']).toBe('1280x1080');
      expect(out.headers['X-Service-Metadata-Fonts']).toMatch(/^[^,]+(,[^,]+)*$/);
    });

    it('should list one more font family for a page that adds monospace text', async () => {
      const fonts = async (path: string) =>
        decodeURIComponent((await r.render('scrape', { url: url(path), metadata_fonts: true })).headers['X-Service-Metadata-Fonts'] ?? '').split(',');
      const sans = await fonts('/sans');
      const both = await fonts('/sans-mono');
      expect(sans.length).toBeGreaterThan(0);
      expect(both).toEqual(expect.arrayContaining(sans));
      expect(both.length).toBeGreaterThan(sans.length);
    });

    it('should add them to pdf and scrape results too', async () => {
      for (const operation of ['pdf', 'scrape'] as const) {
        const out = await r.render(operation, { url: url('/doc'), metadata_title: true, metadata_hash: true });
        expect(out.headers['X-Service-Metadata-Title']).toBe(encodeURIComponent('Café – ünïcode'));
        expect(out.headers['X-Service-Metadata-Hash']).toBe(createHash('sha256').update(out.body).digest('hex'));
      }
    });
  });
});

describe('waiting and time limits', () => {
  describe('When wait_until is domcontentloaded or load', () => {
    it('should render before or after the load event', async () => {
      expect(await scrape({ url: url('/onload'), wait_until: 'domcontentloaded' })).toContain('<title>loading</title>');
      expect(await scrape({ url: url('/onload'), wait_until: 'load' })).toContain('<title>loaded</title>');
    });
  });

  describe('When wait_until is networkidle0 or networkidle2', () => {
    it('should wait for the network to go quiet', async () => {
      expect(await scrape({ url: url('/idle0'), wait_until: 'load' })).toContain('>waiting<');
      expect(await scrape({ url: url('/idle0'), wait_until: 'networkidle0' })).toContain('>xhr-answer<');
      // Two requests never finish: networkidle2 tolerates them, networkidle0 would wait for ever.
      expect(await scrape({ url: url('/idle2'), wait_until: 'networkidle2', timeout: 10 })).toContain('>xhr-answer<');
    });
  });

  describe('When delay is given', () => {
    it('should wait that long before rendering', async () => {
      expect(await scrape({ url: url('/timer') })).toContain('>before<');
      expect(await scrape({ url: url('/timer'), delay: 1.5 })).toContain('>after<');
    });
  });

  describe('When the render takes longer than timeout', () => {
    it('should fail with render_timeout at the timeout, and the next render should work', async () => {
      const started = Date.now();
      await expect(r.render('screenshot', { url: url('/never'), timeout: 2 })).rejects.toMatchObject({ code: 'render_timeout' });
      expect(Date.now() - started).toBeLessThan(4_000);
      await expect(r.render('screenshot', { url: url('/timer'), delay: 3, timeout: 1 })).rejects.toMatchObject({ code: 'render_timeout' });
      const next = await r.render('scrape', { url: url('/doc') });
      expect(next.body.toString('utf8')).toContain('<h1>Report</h1>');
      // The timed-out renders' contexts are closed (or their browser replaced) soon after.
      await until(() => r.pool().stats().inFlight === 0, 5_000, 'the pool to be idle');
      expect(r.pool().healthy()).toBe(true);
    });
  });
});
