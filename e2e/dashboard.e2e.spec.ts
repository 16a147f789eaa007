import { createHmac } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import {
  accountsAdmin,
  httpsRequest,
  imageInfo,
  launchTestBrowser,
  openDashboardView,
  shootDashboard,
  shown,
  startFixtureServer,
  submitDashboardSignIn,
  startTestStack,
  startWebhookReceiver,
  until,
  type FixtureServer,
  type HttpsResponse,
  type TestAccount,
  type TestStack,
  type WebhookReceiver,
} from '@app/testkit';

// The account dashboard in a real browser (Debian's Chromium) against the whole stack as `npm start`
// runs it. One account goes through the page the way its owner would: sign-in, usage, playground, renders,
// keys and their rotation, an expired session, sign-out (its tasks: dashboard-tasks.e2e.spec.ts; what its
// session is kept from: dashboard-isolation.e2e.spec.ts). Screenshots of
// every page at 375 px and 1280 px go to a folder under the OS temp dir (printed below).

const SHOTS = join(tmpdir(), 'dashboard-screenshots');

let stack: TestStack;
let fixture: FixtureServer;
let receiver: WebhookReceiver;
let admin: ReturnType<typeof accountsAdmin>;
let owner: TestAccount;
let browser: Browser;
let page: Page;
let base: string;
let asyncRenderId: string;
/** Every secret key this suite saw: none may appear in a log. */
const secrets: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  console.log(`dashboard screenshots: ${SHOTS}`);
  fixture = await startFixtureServer({
  });
  // Two edges: a session opened on one must hold (and end) on the other.
  stack = await startTestStack({ edges: 2, env: { ALLOW_PRIVATE_TARGETS: '1' } });
  base = `https://localhost:${stack.port}`;
  admin = accountsAdmin(stack.authQuotaAddress);
  owner = await admin.create('scale', 'Dashboard owner');
  secrets.push(owner.secretKey);
  receiver = await startWebhookReceiver({ secret: () => owner.secretKey });
  browser = await launchTestBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
});

afterAll(async () => {
  await browser?.close();
  admin?.close();
  await receiver?.close();
  await stack?.stop();
  await fixture?.close();
});

const call = (method: string, path: string, o: { headers?: Record<string, string>; json?: unknown; body?: string; edge?: number; from?: string } = {}) =>
  stack.call(method, path, o);
const withKey = (accessKey: string) => ({ 'x-access-key': accessKey });
const cookieHeader = (token: string) => ({ cookie: `dashboard_session=${token}` });
const sessionCookie = async () => (await page.cookies()).find((c) => c.name === 'dashboard_session')?.value;
const textOf = (selector: string) => page.$eval(selector, (el) => el.textContent ?? '');
const digits = (s: string) => Number(s.replace(/[^0-9]/g, ''));
/** Polls gently (the account's rate limit counts every API call the test makes). */
const poll = (check: () => Promise<boolean>, timeoutMs: number, what: string) =>
  until(async () => (await check()) || (await new Promise((r) => setTimeout(r, 1_000)), false), timeoutMs, what);
const visible = (selector: string) => shown(page, selector);
const shoot = (name: string) => shootDashboard(page, SHOTS, name);
const signInThroughPage = (accessKey: string, secretKey: string) => submitDashboardSignIn(page, accessKey, secretKey);
const goTo = (view: string) => openDashboardView(page, view);

describe('Account dashboard', () => {
  describe('When the account has rendered, synchronously and asynchronously', () => {
    it('should have usage to show', async () => {
      for (let i = 0; i < 2; i++) {
        const res = await call('POST', '/v1/screenshot', { headers: withKey(owner.accessKey), json: { url: `${fixture.origin}/`, format: 'png' } });
        expect(res.status).toBe(200);
      }
      const accepted = await call('POST', '/v1/screenshot', {
        headers: withKey(owner.accessKey),
        json: { url: `${fixture.origin}/red`, format: 'png', async: true, webhook_url: `${receiver.url}/hooks/dash` },
      });
      expect(accepted.status).toBe(202);
      asyncRenderId = accepted.json<{ id: string }>().id;
      await until(() => receiver.accepted().length === 1, 60_000, 'the webhook of the async render');
    });
  });

  describe('When someone signs in with a wrong secret key', () => {
    it('should show a clear message and never open a session', async () => {
      await page.goto(`${base}/dashboard`, { waitUntil: 'domcontentloaded' });
      await visible('#sign-in-form');
      await shoot('sign-in');
      await signInThroughPage(owner.accessKey, `${owner.secretKey.slice(0, -4)}xxxx`);
      await page.waitForFunction(() => (document.getElementById('sign-in-error')?.textContent ?? '').length > 0);
      expect(await textOf('#sign-in-error')).toMatch(/do not match an account/);
      expect(await sessionCookie()).toBeUndefined();
      expect(await page.$eval('#app', (el) => (el as HTMLElement).hidden)).toBe(true);

      const res = await call('POST', '/dashboard/api/sign-in', { json: { access_key: owner.accessKey, secret_key: 'sk_wrong' } });
      expect(res.status).toBe(401);
      expect(res.json()).toMatchObject({ statusCode: 401, code: 'keys_invalid' });
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    it("should slow 60 guesses from one address to the documented rate, without spending the account's rate limit", async () => {
      // Free plan: 5 API requests a minute, so the old behaviour (failures counted against it) shows at once.
      const guessed = await admin.create('free', 'Guessed at');
      secrets.push(guessed.secretKey);
      const guesser = '127.0.0.3';
      const startedMs = Date.now();
      const answers: HttpsResponse[] = [];
      for (let i = 0; i < 60; i++) {
        answers.push(
          await call('POST', '/dashboard/api/sign-in', { edge: i % 2, from: guesser, json: { access_key: guessed.accessKey, secret_key: `sk_guess_${i}` } }),
        );
      }
      const elapsedMs = Date.now() - startedMs;
      const statuses = answers.map((r) => r.status);
      // Both edges share the counters: 5 guesses at once, then 429 rate_limited with Retry-After.
      expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 429]);
      expect([...new Set(statuses)].sort()).toEqual([401, 429]);
      const refused = answers[5]!;
      expect(refused.json()).toMatchObject({ statusCode: 429, code: 'rate_limited' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers['set-cookie']).toBeUndefined();
      // docs/dashboard.md: 5 at once, then one after waits of 1, 2, 4 ... seconds (15 minutes at most).
      const allowedWithin = (ms: number) => {
        let checked = 5;
        for (let spent = 0, wait = 1_000; spent + wait <= ms; spent += wait, wait = Math.min(wait * 2, 900_000)) checked += 1;
        return checked;
      };
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(allowedWithin(elapsedMs));

      // The owner's API requests and a sign-in from another address are not touched.
      const usage = await call('GET', '/v1/usage', { headers: withKey(guessed.accessKey) });
      expect(usage.status, usage.body.toString()).toBe(200);
      const owner = await call('POST', '/dashboard/api/sign-in', { edge: 1, from: '127.0.0.2', json: { access_key: guessed.accessKey, secret_key: guessed.secretKey } });
      expect(owner.status, owner.body.toString()).toBe(200);
      expect(String(owner.headers['set-cookie'])).toMatch(/^dashboard_session=/);
      const render = await call('POST', '/v1/scrape', { headers: withKey(guessed.accessKey), json: { url: `${fixture.origin}/` } });
      expect(render.status, render.body.toString()).toBe(200);
    });
  });

  describe('When the owner signs in with both keys', () => {
    it('should set an HttpOnly, Secure, SameSite=Strict session cookie for 12 hours', async () => {
      const res = await call('POST', '/dashboard/api/sign-in', { json: { access_key: owner.accessKey, secret_key: owner.secretKey } });
      expect(res.status).toBe(200);
      const cookie = String(res.headers['set-cookie']);
      expect(cookie).toMatch(/^dashboard_session=[A-Za-z0-9_-]{43};/);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/Secure/);
      expect(cookie).toMatch(/SameSite=Strict/);
      expect(cookie).toMatch(/Max-Age=43200/);
      expect(cookie).not.toContain(owner.secretKey);
      const token = /dashboard_session=([^;]+)/.exec(cookie)![1]!;
      const elsewhere = await call('GET', '/dashboard/api/session', { edge: 1, headers: cookieHeader(token) });
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.json()).toMatchObject({ access_key: owner.accessKey, account: { id: owner.accountId } });
    });

    it('should show the usage GET /v1/usage reports, with a chart by day that adds up to it', async () => {
      await signInThroughPage(owner.accessKey, owner.secretKey);
      await visible('#view-overview');
      await page.waitForFunction(() => document.getElementById('ov-quota')?.textContent !== '–' && document.querySelector('#ov-chart svg'));
      const usageNow = async () => (await call('GET', '/v1/usage', { headers: withKey(owner.accessKey) })).json<{ hits: { quota: number; used: number; remaining: number }; renders: { limit: number; in_flight: number } }>();
      await poll(async () => (await usageNow()).hits.used === 3, 10_000, 'the async render counted');
      await page.reload({ waitUntil: 'domcontentloaded' });
      await page.waitForFunction(() => document.getElementById('ov-quota')?.textContent !== '–' && document.querySelector('#ov-chart svg'));
      const usage = await usageNow();
      expect(digits(await textOf('#ov-used'))).toBe(usage.hits.used);
      expect(digits(await textOf('#ov-quota'))).toBe(usage.hits.quota);
      expect(digits(await textOf('#ov-remaining'))).toBe(usage.hits.remaining);
      expect(await textOf('#ov-plan')).toBe('scale');
      expect(digits(await textOf('#ov-rate'))).toBe(150);
      expect(usage.renders).toEqual({ limit: 25, in_flight: 0 });
      expect(digits(await textOf('#ov-inflight'))).toBe(usage.renders.in_flight);
      expect(digits(await textOf('#ov-inflight-limit'))).toBe(usage.renders.limit);
      const bars = await page.$$eval('#ov-chart rect.bar', (rects) => rects.map((r) => Number(r.getAttribute('data-used'))));
      expect(bars.length).toBe(new Date().getUTCDate());
      expect(bars.reduce((a, b) => a + b, 0)).toBe(usage.hits.used);
      expect(bars[bars.length - 1]).toBe(3);
      await shoot('overview');
    });
  });

  describe('When the owner opens Keys', () => {
    it('should show the access key, reveal the secret key on demand, and switch signatures on and off', async () => {
      await goTo('keys');
      expect(await textOf('#keys-access')).toBe(owner.accessKey);
      expect(await textOf('#keys-secret')).not.toContain('sk_');
      await page.click('#keys-reveal');
      await page.waitForFunction(() => document.getElementById('keys-secret')?.textContent?.startsWith('sk_'));
      expect(await textOf('#keys-secret')).toBe(owner.secretKey);
      await page.click('#keys-reveal');
      await page.waitForFunction(() => !document.getElementById('keys-secret')?.textContent?.startsWith('sk_'));

      await page.click('#keys-signatures');
      await poll(async () => (await call('GET', `/v1/screenshot?url=${encodeURIComponent(`${fixture.origin}/`)}`, { headers: withKey(owner.accessKey) })).status === 401, 10_000, 'signatures required');
      const unsigned = await call('GET', `/v1/screenshot?url=${encodeURIComponent(`${fixture.origin}/`)}`, { headers: withKey(owner.accessKey) });
      expect(unsigned.json()).toMatchObject({ code: 'signature_required' });
      await shoot('keys');
    });
  });

  describe('When the owner renders in the playground (signatures required)', () => {
    it('should sign the request, show the image inline, and give a curl command and a signed GET link that work', async () => {
      await goTo('playground');
      await page.type('#pg-url', `${fixture.origin}/`);
      await page.select('#pg-format', 'png');
      await page.type('#pg-viewport_width', '800');
      await page.type('#pg-viewport_height', '600');
      await page.click('#pg-render');
      await page.waitForSelector('#pg-image', { visible: true, timeout: 60_000 });
      await page.waitForFunction(() => (document.getElementById('pg-image') as HTMLImageElement).naturalWidth > 0);
      const size = await page.$eval('#pg-image', (img) => [(img as HTMLImageElement).naturalWidth, (img as HTMLImageElement).naturalHeight]);
      expect(size).toEqual([800, 600]);

      await page.click('#pg-curl');
      await page.waitForFunction(() => (document.getElementById('pg-snippet') as HTMLTextAreaElement).value.startsWith('curl'));
      const curl = await page.$eval('#pg-snippet', (t) => (t as HTMLTextAreaElement).value);
      expect(curl).toContain(`X-Access-Key: ${owner.accessKey}`);
      expect(curl).toMatch(/X-Signature: [0-9a-f]{64}/);
      expect(curl).not.toContain(owner.secretKey);

      await page.click('#pg-link');
      await page.waitForFunction(() => (document.getElementById('pg-snippet') as HTMLTextAreaElement).value.startsWith('https://'));
      const link = await page.$eval('#pg-snippet', (t) => (t as HTMLTextAreaElement).value);
      expect(link).toMatch(/&signature=[0-9a-f]{64}$/);
      expect(link).not.toContain(owner.secretKey);
      const fetched = await httpsRequest(link.replace(base, `https://127.0.0.1:${stack.port}`), { ca: stack.certPem, servername: 'localhost' });
      expect(fetched.status).toBe(200);
      expect(await imageInfo(fetched.body)).toMatchObject({ format: 'png', width: 800, height: 600 });
      const tampered = await httpsRequest(link.replace('viewport_width=800', 'viewport_width=801').replace(base, `https://127.0.0.1:${stack.port}`), {
        ca: stack.certPem,
        servername: 'localhost',
      });
      expect(tampered.status).toBe(403);
      await shoot('playground');
    });

    it('should send the element to capture and the styles to add from their fields', async () => {
      await page.type('#pg-selector', 'h1');
      await page.type('#pg-styles', 'h1 { display: block; width: 300px; height: 50px; margin: 0; background: #00f }');
      await page.click('#pg-render');
      // The image is the h1 alone, at the size the styles gave it.
      await page.waitForFunction(
        () => {
          const img = document.getElementById('pg-image') as HTMLImageElement | null;
          return img?.naturalWidth === 300 && img.naturalHeight === 50;
        },
        { timeout: 60_000 },
      );
      await page.$eval('#pg-selector', (el) => ((el as HTMLInputElement).value = ''));
      await page.$eval('#pg-styles', (el) => ((el as HTMLTextAreaElement).value = ''));
    });

    it('should show the API validation message beside the field', async () => {
      await page.$eval('#pg-viewport_width', (el) => ((el as HTMLInputElement).value = '-5'));
      await page.click('#pg-render');
      await page.waitForFunction(() => (document.getElementById('pg-viewport_width-error')?.textContent ?? '').length > 0);
      const body = JSON.stringify({ url: `${fixture.origin}/`, viewport_width: -5 });
      const api = await call('POST', '/v1/screenshot', {
        headers: { ...withKey(owner.accessKey), 'content-type': 'application/json', 'x-signature': createHmac('sha256', owner.secretKey).update(body).digest('hex') },
        body,
      });
      expect(api.status).toBe(400);
      const expected = api.json<{ details: { parameter: string; message: string }[] }>().details.find((d) => d.parameter === 'viewport_width')!.message;
      expect(await textOf('#pg-viewport_width-error')).toBe(expected);
      expect(await page.$eval('#pg-viewport_width', (el) => el.getAttribute('aria-invalid'))).toBe('true');
    });
  });

  describe('When the owner switches signatures off again', () => {
    it('should accept unsigned render requests at once', async () => {
      await goTo('keys');
      expect(await page.$eval('#keys-signatures', (el) => (el as HTMLInputElement).checked)).toBe(true);
      await page.click('#keys-signatures');
      // Signatures matter on render routes only, so an unsigned render is what shows the switch took effect.
      await poll(
        async () => (await call('POST', '/v1/scrape', { headers: withKey(owner.accessKey), json: { url: `${fixture.origin}/` } })).status === 200,
        10_000,
        'an unsigned render accepted',
      );
    });
  });

  describe('When the owner opens Renders', () => {
    it('should list the async render with its result link and webhook delivery', async () => {
      await goTo('renders');
      const row = await page.waitForSelector(`tr[data-render-id="${asyncRenderId}"]`, { timeout: 10_000 });
      const cells = await row!.$$eval('td', (tds) => tds.map((td) => td.textContent ?? ''));
      expect(cells[1]).toContain('succeeded');
      expect(cells[5]).toContain('delivered');
      expect(cells[5]).toContain('1 attempt');
      const link = await row!.$eval('a', (a) => a.getAttribute('href')!);
      const file = await httpsRequest(link.replace(base, `https://127.0.0.1:${stack.port}`), { ca: stack.certPem, servername: 'localhost' });
      expect(file.status).toBe(200);
      await shoot('renders');
    });
  });

  describe('When the owner rotates the keys', () => {
    let rotated: { accessKey: string; secretKey: string };
    let oldCookie: string;

    it('should show the new keys once and refuse the old access key on the API at once', async () => {
      oldCookie = (await sessionCookie())!;
      await goTo('keys');
      await page.click('#keys-rotate');
      await visible('#rotate-dialog');
      await page.click('#rotate-confirm');
      await visible('#keys-new');
      rotated = { accessKey: await textOf('#keys-new-access'), secretKey: await textOf('#keys-new-secret') };
      secrets.push(rotated.secretKey);
      const old = await call('GET', '/v1/usage', { headers: withKey(owner.accessKey) });
      expect(old.status).toBe(401);
      expect((await call('GET', '/v1/usage', { edge: 1, headers: withKey(owner.accessKey) })).status).toBe(401);
      expect(old.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Invalid access key', code: 'access_key_invalid' });
      const fresh = await call('GET', '/v1/usage', { headers: withKey(rotated.accessKey) });
      expect({ status: fresh.status, body: fresh.json() }).toMatchObject({ status: 200 });
      expect(await textOf('#keys-access')).toBe(rotated.accessKey);
      await shoot('keys-rotated');
      await goTo('overview');
      await goTo('keys');
      expect(await page.$eval('#keys-new', (el) => (el as HTMLElement).hidden)).toBe(true);
    });

    it('should refuse the session cookie issued before the rotation, and keep this one working', async () => {
      for (const edge of [0, 1]) {
        const before = await call('GET', '/dashboard/api/session', { edge, headers: cookieHeader(oldCookie) });
        expect(before.status).toBe(401);
        expect(before.json()).toMatchObject({ code: 'session_expired' });
      }
      const current = (await sessionCookie())!;
      expect(current).not.toBe(oldCookie);
      expect((await call('GET', '/dashboard/api/session', { edge: 1, headers: cookieHeader(current) })).status).toBe(200);
    });

    it('should ask to sign in again when the session ends, keeping what was typed', async () => {
      await goTo('tasks');
      await page.type('#task-name', 'Typed before expiry');
      await page.deleteCookie({ name: 'dashboard_session', url: `${base}/dashboard` });
      await page.evaluate(() => (location.hash = 'renders'));
      await visible('#sign-in.overlay');
      expect(await textOf('#sign-in-title')).toBe('Sign in again to continue');
      await shoot('session-expired');
      await signInThroughPage(rotated.accessKey, rotated.secretKey);
      await page.waitForSelector('#sign-in', { hidden: true });
      await goTo('tasks');
      expect(await page.$eval('#task-name', (el) => (el as HTMLInputElement).value)).toBe('Typed before expiry');
    });

    it('should sign out and end the session', async () => {
      const token = (await sessionCookie())!;
      await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#sign-out')]);
      await visible('#sign-in-form');
      expect(await sessionCookie()).toBeUndefined();
      for (const edge of [0, 1]) expect((await call('GET', '/dashboard/api/session', { edge, headers: cookieHeader(token) })).status).toBe(401);
    });
  });

  describe('When the suite is over', () => {
    it('should have written no secret key to any log and served every asset itself', async () => {
      const logDir = join(stack.dataDir, 'logs');
      const logs = readdirSync(logDir).map((f) => readFileSync(join(logDir, f), 'utf8')).join('\n');
      for (const secret of secrets) expect(logs).not.toContain(secret);
      const pageHtml = (await call('GET', '/dashboard')).body.toString('utf8');
      expect(pageHtml).not.toMatch(/(src|href)="(https?:)?\/\//);
      const csp = String((await call('GET', '/dashboard')).headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
    });
  });
});
