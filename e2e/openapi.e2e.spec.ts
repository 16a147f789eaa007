import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'puppeteer-core';
import {
  accountsAdmin,
  launchTestBrowser,
  openApiValidator,
  startFixtureServer,
  startTestStack,
  until,
  type FixtureServer,
  type HttpsResponse,
  type TestStack,
} from '@app/testkit';

// The generated OpenAPI document against the running service: every route's answers, success and
// error, must be described by it; and the interactive reference at /docs must show every route and
// send a request with the visitor's key, in a real browser.
let stack: TestStack;
let fixture: FixtureServer;
let admin: ReturnType<typeof accountsAdmin>;
let doc: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let validator: ReturnType<typeof openApiValidator>;
/** `METHOD /template` of every answer checked, to prove each documented operation was exercised. */
const exercised = new Map<string, Set<string>>();

beforeAll(async () => {
  fixture = await startFixtureServer({});
  stack = await startTestStack({ renderers: 1, env: { ALLOW_PRIVATE_TARGETS: '1', RENDERER_CONCURRENCY: '2' } });
  admin = accountsAdmin(stack.authQuotaAddress);
  const res = await stack.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.json();
  validator = openApiValidator(doc);
});

afterAll(async () => {
  admin?.close();
  await stack?.stop();
  await fixture?.close();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });

/** Calls the API and checks the answer against the document. */
async function call(method: string, path: string, opts: Parameters<TestStack['call']>[2] = {}): Promise<HttpsResponse> {
  const res = await stack.call(method, path, opts);
  expect(validator.check(method, path, res), `${method} ${path} -> ${res.status} ${res.body.toString().slice(0, 200)}`).toEqual([]);
  const template = `${method} ${validator.templateOf(path.split('?')[0]!)}`;
  if (!exercised.has(template)) exercised.set(template, new Set());
  exercised.get(template)!.add(res.status < 400 ? 'success' : 'error');
  return res;
}

describe('Answers of every route against /openapi.json', () => {
  describe('When each route is called to succeed and to fail', () => {
    it('should answer only what the document describes', async () => {
      const page = encodeURIComponent(`${fixture.origin}/`);
      const html = '<p>openapi</p>';

      await call('GET', '/healthz');
      await call('GET', '/readyz');
      await call('GET', '/openapi.json');

      for (const op of ['screenshot', 'pdf', 'scrape']) {
        await call('GET', `/v1/${op}?url=${page}`, { headers: key() });
        await call('POST', `/v1/${op}`, { headers: key(), json: { url: `${fixture.origin}/`, metadata_title: true, cache: true } });
        await call('GET', `/v1/${op}?url=${page}&delay=99`, { headers: key() });
        await call('POST', `/v1/${op}`, { json: { url: `${fixture.origin}/` } });
      }
      await call('GET', `/v1/screencast?html=${encodeURIComponent(html)}&duration=1&viewport_width=64&viewport_height=48`, { headers: key() });
      await call('POST', '/v1/screencast', { headers: key(), json: { html, duration: 1, format: 'webm', viewport_width: 64, viewport_height: 48 } });
      await call('GET', `/v1/screencast?html=${encodeURIComponent(html)}&duration=31`, { headers: key() });
      await call('POST', '/v1/screencast', { headers: key(), json: { html, scroll_by_amount: 10 } });
      await call('GET', `/v1/screenshot?html=${encodeURIComponent(html)}&viewport_width=0&headers=${encodeURIComponent('X-A: 1,X-B: 2')}`, { headers: key() });

      const accepted = await call('POST', '/v1/screenshot', { headers: key(), json: { html, async: true } });
      expect(accepted.status).toBe(202);
      const id = accepted.json<{ id: string }>().id;
      let file = '';
      await until(
        async () => {
          const status = await call('GET', `/v1/renders/${id}`, { headers: key() });
          file = status.json<{ file: string | null }>().file ?? '';
          return status.json<{ status: string }>().status === 'succeeded';
        },
        30_000,
        'async render succeeded',
      );
      await call('GET', '/v1/renders/00000000-0000-4000-8000-000000000000', { headers: key() });
      await call('GET', new URL(file).pathname);
      await call('GET', '/v1/files/not-a-file');

      await call('GET', '/v1/usage', { headers: key() });
      await call('GET', '/v1/usage', { headers: { 'x-access-key': 'wrong' } });
      await call('GET', '/v1/devices', { headers: key() });
      await call('GET', '/v1/devices');

      await call('POST', '/v1/secrets', { headers: key(), json: { name: 'documented', value: 'a value' } });
      await call('POST', '/v1/secrets', { headers: key(), json: { name: 'not a name', value: 'a value' } });
      await call('GET', '/v1/secrets', { headers: key() });
      await call('GET', '/v1/secrets', {});
      await call('DELETE', '/v1/secrets/documented', { headers: key() });
      await call('DELETE', '/v1/secrets/documented', { headers: key() });

      const task = await call('POST', '/v1/tasks', {
        headers: key(),
        json: { name: 'documented', api: 'pdf', query: `html=${encodeURIComponent(html)}`, frequency: 'every_day', enabled: false },
      });
      expect(task.status).toBe(201);
      const taskId = task.json<{ id: number }>().id;
      await call('POST', '/v1/tasks', { headers: key(), json: { name: 'bad', api: 'pdf', query: 'delay=99', frequency: 'every_day' } });
      const basic = await admin.create('basic');
      await call('POST', '/v1/tasks', { headers: { 'x-access-key': basic.accessKey }, json: { name: 'x', api: 'pdf', query: 'html=x', frequency: 'every_day' } });
      await call('GET', '/v1/tasks', { headers: key() });
      await call('GET', '/v1/tasks', {});
      await call('GET', `/v1/tasks/${taskId}`, { headers: key() });
      await call('GET', '/v1/tasks/999999999', { headers: key() });
      await call('PATCH', `/v1/tasks/${taskId}`, { headers: key(), json: { name: 'renamed' } });
      await call('PATCH', `/v1/tasks/${taskId}`, { headers: key(), json: { runs: 3 } });
      await call('GET', `/v1/tasks/${taskId}/runs`, { headers: key() });
      await call('POST', `/v1/tasks/${taskId}/runs`, { headers: key() });
      await call('POST', '/v1/tasks/999999999/runs', { headers: key() });
      await call('GET', `/v1/tasks/${taskId}/changes`, { headers: key() });
      await call('GET', '/v1/tasks/999999999/changes', { headers: key() });
      await call('GET', '/v1/tasks/999999999/runs', { headers: key() });
      // A monitor's kept run compared with itself (success); a bad run id (error).
      const watched = await call('POST', '/v1/tasks', {
        headers: key(),
        json: { name: 'kept', api: 'scrape', query: `url=${page}`, frequency: 'every_day', enabled: false, monitor: { mode: 'text' } },
      });
      expect(watched.status, watched.body.toString()).toBe(201);
      const watchedId = watched.json<{ id: number }>().id;
      const asked = await call('POST', `/v1/tasks/${watchedId}/runs`, { headers: key() });
      expect(asked.status, asked.body.toString()).toBe(202);
      const runId = asked.json<{ id: string }>().id;
      await until(
        async () => {
          // Polled slowly: a 429 (every call counts against the account's rate limit) is waited out.
          const res = await stack.call('GET', `/v1/tasks/${watchedId}/runs`, { headers: key() });
          return res.status === 200 && res.json<{ runs: { id: string; change: unknown }[] }>().runs.find((r) => r.id === runId)?.change != null;
        },
        90_000,
        'the monitor\'s first run compared',
        1_000,
      );
      expect((await call('GET', `/v1/tasks/${watchedId}/compare?from=${runId}&to=${runId}`, { headers: key() })).status).toBe(200);
      await call('GET', `/v1/tasks/${watchedId}/compare?from=nope&to=${runId}`, { headers: key() });
      await call('DELETE', `/v1/tasks/${taskId}`, { headers: key() });
      await call('DELETE', `/v1/tasks/${taskId}`, { headers: key() });

      const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      );
      for (const operation of operations) {
        const kinds = exercised.get(operation);
        expect(kinds, `${operation} was called`).toBeDefined();
        // /healthz, /openapi.json and /readyz have no error a test can cause here (a NATS outage: health.e2e).
        if (!['GET /healthz', 'GET /readyz', 'GET /openapi.json'].includes(operation)) expect([...kinds!].sort(), operation).toEqual(['error', 'success']);
      }
    });
  });
});

describe('/docs in a browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchTestBrowser();
  });
  afterAll(async () => browser?.close());

  describe('When the reference is opened', () => {
    it('should show every route, and send a request with the key the visitor gave', async () => {
      const page = await browser.newPage();
      const outside: string[] = [];
      page.on('request', (r) => {
        // Inline data: images are part of the served assets; anything fetched must come from the service.
        if (!r.url().startsWith(`https://127.0.0.1:${stack.port}/`) && !r.url().startsWith('data:')) outside.push(r.url());
      });
      await page.goto(`https://127.0.0.1:${stack.port}/docs/`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      // Swagger UI's bundle is large: parsing it on a loaded machine takes a while.
      await page.waitForSelector('.opblock', { timeout: 60_000 }).catch(async (err: unknown) => {
        throw new Error(`no operation shown: ${pageErrors.join('; ')} ${(await page.content()).slice(0, 500)}`, { cause: err });
      });
      const shown = await page.$$eval('.opblock', (blocks) =>
        blocks.map((b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
      );
      // Every operation of every path, and the webhooks the service sends (shown by their names).
      const operations = [doc.paths, doc.webhooks].flatMap((items) =>
        Object.entries(items as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)),
      );
      expect(operations).toEqual(expect.arrayContaining(['POST render.finished', 'POST task.changed']));
      expect(shown.sort()).toEqual(operations.sort());
      expect(outside, 'every asset comes from the service').toEqual([]);
      // Its Content-Security-Policy holds in the browser: a script added to the page does not run.
      const injected = await page.evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'window.__injected = true';
        document.head.append(script);
        return (window as unknown as { __injected?: boolean }).__injected ?? false;
      });
      expect(injected).toBe(false);

      // Authorize with the access key (the header scheme), then try GET /v1/usage.
      await page.click('.btn.authorize');
      await page.waitForSelector('.auth-container input');
      await page.type('.auth-container input', stack.demo.accessKey);
      await page.click('.auth-container .auth-btn-wrapper .modal-btn.auth');
      await page.click('.btn-done, .close-modal');
      await page.click('#operations-Account-usage .opblock-summary-control');
      // The reference opens operations ready to try (tryItOutEnabled): Execute sends the request.
      await page.waitForSelector('#operations-Account-usage .execute');
      await page.click('#operations-Account-usage .execute');
      await page.waitForSelector('#operations-Account-usage .live-responses-table tr.response .response-col_status', { timeout: 30_000 });
      const status = await page.$eval('#operations-Account-usage .live-responses-table tr.response .response-col_status', (e) => e.textContent?.trim());
      expect(status).toBe('200');
      const body = await page.$eval('#operations-Account-usage .live-responses-table tr.response .response-col_description', (e) => e.textContent ?? '');
      expect(body).toContain('"hits"');
    });
  });
});
