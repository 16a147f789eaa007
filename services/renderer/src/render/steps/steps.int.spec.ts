import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEgressProxy, type EgressProxy } from '@app/net-guard';
import { renderBudgetMs, validateRenderParams, type Operation } from '@app/render-params';
import { startFixtureServer, startSignInSite, type FixtureServer, type SignInSite } from '@app/testkit';
import { poolRenderer } from '../pool-renderer.js';
import { useRenderer } from '../testing/render-harness.js';

// Browser steps on a real Chromium: proved on what the fixture site received, what the page shows,
// and what a loopback canary received.
let site: SignInSite;
let pages: FixtureServer;
let canary: FixtureServer;
let strict: EgressProxy;
let open: EgressProxy;

const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  site = await startSignInSite({ user: 'ann', password: PASSWORD, sessionMs: 60_000 });
  pages = await startFixtureServer({
    '/forever': (_req, res) => {
      // Every load schedules another: a click on the button reloads it, and so does the page itself.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end('<!doctype html><button id="again" onclick="location.reload()">again</button><script>setTimeout(() => location.reload(), 30)</script>');
    },
    // A button that sends the page into redirects that never end: each document replaces itself before it loads.
    '/to-chain': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end('<!doctype html><button id="go" onclick="location.href = \'/chain?n=0\'">go</button>');
    },
    '/chain': (req, res) => {
      const n = Number(new URL(req.url ?? '/', 'http://fixture').searchParams.get('n') ?? 0);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`<!doctype html><p>${n}</p><script>location.replace('/chain?n=${n + 1}')</script>`);
    },
    // A page that is still once loaded, until its button is clicked: from then on it reloads itself
    // 20 ms after each load, forever (the click step itself ends: the reload it started loaded).
    '/reloader': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(
        '<!doctype html><button id="again" onclick="sessionStorage.setItem(\'loop\', \'1\'); location.reload()">again</button>' +
          "<script>if (sessionStorage.getItem('loop')) setTimeout(() => location.reload(), 20)</script>",
      );
    },
    '/form': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<!doctype html><select id="pick"><option value="a">A</option><option value="b">B</option></select>' +
          '<input id="agree" type="checkbox"><input id="free"><p id="out"></p>' +
          "<script>const show = () => { document.getElementById('out').textContent = [document.getElementById('pick').value, document.getElementById('agree').checked, document.getElementById('free').value].join('|') };" +
          "for (const id of ['pick', 'agree', 'free']) { document.getElementById(id).addEventListener('input', show); document.getElementById(id).addEventListener('change', show) }</script>",
      );
    },
  });
  canary = await startFixtureServer({ '/post': (_req, res) => res.end('posted'), '/visit': (_req, res) => res.end('visited') });
  strict = await startEgressProxy({ allowPrivate: false });
  open = await startEgressProxy({ allowPrivate: true });
});
afterAll(async () => {
  await Promise.all([site?.close(), pages?.close(), canary?.close(), strict?.close(), open?.close()]);
});

const signInSteps = (password: { text: string } | { secret: string }) => [
  { action: 'goto', url: `${site.origin}/login` },
  { action: 'type', selector: '#user', text: 'ann' },
  { action: 'type', selector: '#password', ...password },
  { action: 'click', selector: '#sign-in' },
  { action: 'wait_for_selector', selector: '#balance' },
];

describe('steps', () => {
  const r = useRenderer();
  /** A renderer given the account secrets of this render, as perform-render gives them. */
  const withSecrets = (operation: Operation, input: Record<string, unknown>, secrets: Record<string, string>) => {
    const { params } = validateRenderParams(operation, input);
    return poolRenderer(r.pool(), { routing: { allowPrivate: true, ipLocationProxies: {} } }).render(operation, params, renderBudgetMs(operation, params), {
      secrets: new Map(Object.entries(secrets)),
    });
  };

  describe('When steps sign in through a form', () => {
    it('should reach the page behind it, the site having received what was typed', async () => {
      const before = site.signIns();
      const out = await r.render('scrape', { url: `${site.origin}/login`, steps: signInSteps({ text: PASSWORD }) });
      expect(out.body.toString()).toContain('Balance: 100 EUR');
      expect(site.signIns() - before).toBe(1);
      expect(site.passwordsReceived().at(-1)).toBe(PASSWORD);
    });

    it("should type a secret's value given to the render, never its name", async () => {
      const out = await withSecrets('scrape', { url: `${site.origin}/login`, steps: signInSteps({ secret: 'shop' }) }, { shop: PASSWORD });
      expect(out.body.toString()).toContain('Balance: 100 EUR');
      expect(site.passwordsReceived().at(-1)).toBe(PASSWORD);
    });

    it('should answer 404 secret_not_found naming the step when the secret is not given', async () => {
      await expect(withSecrets('scrape', { url: `${site.origin}/login`, steps: signInSteps({ secret: 'gone' }) }, {})).rejects.toMatchObject({
        code: 'secret_not_found',
        details: [{ parameter: 'steps[2].secret' }],
      });
    });
  });

  describe('When steps fill a form', () => {
    it('should select, check and type (the page saw each)', async () => {
      const steps = [
        { action: 'select', selector: '#pick', value: 'b' },
        { action: 'check', selector: '#agree' },
        { action: 'type', selector: '#free', text: 'x'.repeat(1_000) },
        { action: 'hover', selector: '#out' },
        { action: 'scroll_to', selector: '#out' },
        { action: 'press', key: 'Tab' },
      ];
      const out = await r.render('scrape', { url: `${pages.origin}/form`, steps });
      expect(out.body.toString()).toContain(`b|true|${'x'.repeat(1_000)}`);
    });

    it('should skip an optional step whose element is absent, and fail naming a required one', async () => {
      const ok = await r.render('scrape', { url: `${pages.origin}/form`, steps: [{ action: 'click', selector: '#nowhere', optional: true }, { action: 'check', selector: '#agree' }] });
      expect(ok.body.toString()).toContain('a|true|');
      await expect(r.render('scrape', { url: `${pages.origin}/form`, steps: [{ action: 'wait', ms: 1 }, { action: 'click', selector: '#nowhere' }] })).rejects.toMatchObject({
        code: 'selector_not_found',
        message: 'steps[1] (click "#nowhere"): no element matches "#nowhere" (waited 10 s).',
        details: [{ parameter: 'steps[1].selector' }],
      });
    });

    it('should answer 400 naming steps[i].value when no option has the value', async () => {
      await expect(r.render('scrape', { url: `${pages.origin}/form`, steps: [{ action: 'select', selector: '#pick', value: 'z' }] })).rejects.toMatchObject({
        code: 'invalid_parameter',
        details: [{ parameter: 'steps[0].value' }],
      });
    });
  });

  describe('When a step cannot finish within the timeout', () => {
    it('should answer render_timeout naming the step and what it waited for (wait_for_selector)', async () => {
      const started = Date.now();
      await expect(r.render('scrape', { url: `${pages.origin}/form`, timeout: 4, steps: [{ action: 'wait_for_selector', selector: '#never' }] })).rejects.toMatchObject({
        code: 'render_timeout',
        message: 'The render did not finish within the timeout of 4 seconds: steps[0] (wait_for_selector "#never") was waiting for a visible element matching "#never".',
        details: [{ parameter: 'steps[0]' }],
      });
      expect(Date.now() - started).toBeLessThan(4_000 + 3_000);
    });

    it('should answer 50 waits of 10 s within the timeout, naming the wait that ran out, while another render is served', async () => {
      const started = Date.now();
      const steps = Array.from({ length: 50 }, () => ({ action: 'wait', ms: 10_000 }));
      const waiting = expect(r.render('screenshot', { url: `${pages.origin}/form`, timeout: 5, steps })).rejects.toMatchObject({
        code: 'render_timeout',
        message: expect.stringContaining('steps[0] (wait "10000 ms") was waiting for 10000 ms to pass'),
        details: [{ parameter: 'steps[0]', message: 'timed out waiting for 10000 ms to pass' }],
      });
      const other = await r.render('scrape', { url: `${pages.origin}/form` });
      expect(other.body.toString()).toContain('pick');
      await waiting;
      expect(Date.now() - started).toBeLessThan(5_000 + 3_000);
    });

    it('should answer a click that sends the page into redirects without end within the timeout, naming the click, while another render is served', async () => {
      const started = Date.now();
      const looping = expect(r.render('screenshot', { url: `${pages.origin}/to-chain`, timeout: 6, steps: [{ action: 'click', selector: '#go' }] })).rejects.toMatchObject({
        code: 'render_timeout',
        message: 'The render did not finish within the timeout of 6 seconds: steps[0] (click "#go") was waiting for the page it opened to load.',
        details: [{ parameter: 'steps[0]' }],
      });
      const other = await r.render('scrape', { url: `${pages.origin}/form` });
      expect(other.body.toString()).toContain('pick');
      await looping;
      expect(Date.now() - started).toBeLessThan(6_000 + 3_000);
      // It did loop: the fixture served the chain many times over.
      expect(pages.hits('/chain')).toBeGreaterThan(10);
    });

    it('should answer a click after which the page reloads itself forever within the timeout, naming the click when it fails', async () => {
      const before = pages.hits('/reloader');
      const started = Date.now();
      // Each document the loop loads stands for about 20 ms: a capture usually straddles a reload and fails,
      // but one that fits between two (on a slow or busy machine) is an honest screenshot of the page.
      const outcome = await r.render('screenshot', { url: `${pages.origin}/reloader`, timeout: 6, steps: [{ action: 'click', selector: '#again' }] }).then(
        (out) => ({ out }),
        (err: unknown) => ({ err }),
      );
      expect(Date.now() - started).toBeLessThan(6_000 + 3_000);
      if ('err' in outcome) {
        expect(outcome.err).toMatchObject({
          code: expect.stringMatching(/^render_(timeout|failed)$/),
          message: expect.stringMatching(/after steps\[0\] \(click "#again"\) \(\d+ since the steps ended\)/),
          details: [{ parameter: 'steps[0]' }],
        });
        expect(pages.hits('/reloader') - before).toBeGreaterThan(3);
      } else {
        expect(outcome.out.body.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
        // The click's reload came before the capture: the screenshot is of the page the click led to.
        expect(pages.hits('/reloader') - before).toBeGreaterThan(1);
      }
    });

    it('should refuse a type of 1 MB before any render, naming steps[0].text, and type the most allowed (10,000 characters) in full within the timeout', async () => {
      let refused: unknown;
      try {
        r.params('scrape', { url: `${pages.origin}/form`, steps: [{ action: 'type', selector: '#free', text: 'x'.repeat(1_000_000) }] });
      } catch (err) {
        refused = err;
      }
      expect(refused).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'steps[0].text' }] });
      const started = Date.now();
      const out = await r.render('scrape', { url: `${pages.origin}/form`, timeout: 5, steps: [{ action: 'type', selector: '#free', text: 'y'.repeat(10_000) }] });
      expect(out.body.toString()).toContain(`a|false|${'y'.repeat(10_000)}`);
      expect(Date.now() - started).toBeLessThan(5_000 + 3_000);
    });

    it('should end a click on a page that reloads forever within the timeout, while another render is served', async () => {
      const started = Date.now();
      const looping = r
        .render('screenshot', { url: `${pages.origin}/forever`, timeout: 6, steps: [{ action: 'click', selector: '#again' }, { action: 'wait_for_selector', selector: '#never' }] })
        .then(
          () => ({ ok: true }),
          (err: { code?: string; message: string }) => ({ ok: false, code: err.code, message: err.message }),
        );
      const other = await r.render('scrape', { url: `${pages.origin}/form` });
      expect(other.body.toString()).toContain('pick');
      const outcome = await looping;
      // Either the page is caught between documents, or the wait after the click runs out: each names its step.
      expect(outcome).toMatchObject({ ok: false, code: expect.stringMatching(/^render_(timeout|failed)$/), message: expect.stringMatching(/steps\[[01]\] \((click|wait_for_selector)/) });
      expect(Date.now() - started).toBeLessThan(6_000 + 3_000);
    });
  });
});

/** A page given as html (no address of its own) with a form that posts to the canary. */
const formToCanary = () => ({
  html: `<!doctype html><form method="post" action="${canary.origin}/post"><input name="q" value="1"><button id="send">send</button></form>`,
  steps: [{ action: 'click', selector: '#send' }],
});

describe('Every navigation a step causes passes the egress guard', () => {
  describe('When private targets are not allowed (the service as deployed)', () => {
    const r = useRenderer(() => ({ pool: { proxyUrl: strict.url }, renderer: { routing: { allowPrivate: false, ipLocationProxies: {} } } }));

    it("should refuse a goto step to a loopback canary before it loads: 400 naming steps[0].url, the canary gets nothing", async () => {
      const before = canary.requests.length;
      await expect(r.render('screenshot', { html: '<p>start</p>', steps: [{ action: 'goto', url: `${canary.origin}/visit` }] })).rejects.toMatchObject({
        code: 'target_not_allowed',
        details: [{ parameter: 'steps[0].url' }],
      });
      expect(canary.requests.length - before).toBe(0);
    });

    it('should refuse a form that posts to the canary: target_not_allowed naming steps[0], the canary gets nothing', async () => {
      const before = canary.requests.length;
      const blockedBefore = strict.stats().blocked;
      await expect(r.render('screenshot', formToCanary())).rejects.toMatchObject({ code: 'target_not_allowed', details: [{ parameter: 'steps[0]' }] });
      expect(canary.requests.length - before).toBe(0);
      expect(strict.stats().blocked - blockedBefore).toBeGreaterThanOrEqual(1);
    });
  });

  describe('When private targets are allowed (the same renders, the guard open)', () => {
    const r = useRenderer(() => ({ pool: { proxyUrl: open.url } }));

    it('should reach the canary with both (so the tests above can fail)', async () => {
      const before = { post: canary.hits('/post'), visit: canary.hits('/visit') };
      await r.render('screenshot', formToCanary());
      await r.render('screenshot', { html: '<p>start</p>', steps: [{ action: 'goto', url: `${canary.origin}/visit` }] });
      expect(canary.hits('/post') - before.post).toBe(1);
      expect(canary.hits('/visit') - before.visit).toBe(1);
    });
  });
});
