import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsAdmin, startFixtureServer, startTestStack, until, type FixtureServer, type TestAccount, type TestStack } from '@app/testkit';

// Honest failures and PDF layout through the HTTPS API, against the whole stack: a page the caller does
// not want (an error status, a bot wall, missing content) is a 500 with the documented code and details,
// in sync and async renders alike, and none of them is charged: GET /v1/usage before and after.
let stack: TestStack;
let fixture: FixtureServer;
let admin: ReturnType<typeof accountsAdmin>;
let account: TestAccount;
const run = promisify(execFile);

const answer = (status: number, body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Fixture</title></head><body>${body}</body></html>`);
};

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/missing': answer(404, '<h1>Not found</h1>'),
    '/unavailable': answer(503, '<h1>Down for maintenance</h1>'),
    '/captcha': answer(200, '<h1>Please verify you are human</h1>'),
    '/ok': answer(200, '<h1>Welcome</h1><p>Prices from 10 EUR</p>'),
    '/sheets': answer(200, [1, 2, 3].map((i) => `<p style="page-break-after:always">Sheet ${i}</p>`).join('')),
  });
  stack = await startTestStack({ renderers: 1, env: { ALLOW_PRIVATE_TARGETS: '1', RENDERER_CONCURRENCY: '2' } });
  admin = accountsAdmin(stack.authQuotaAddress);
  account = await admin.create('scale');
});

afterAll(async () => {
  admin?.close();
  await stack?.stop();
  await fixture?.close();
});

const key = () => ({ 'x-access-key': account.accessKey });
const post = (operation: string, json: Record<string, unknown>) => stack.call('POST', `/v1/${operation}`, { headers: key(), json });
const get = (operation: string, query: string) => stack.call('GET', `/v1/${operation}?access_key=${encodeURIComponent(account.accessKey)}&${query}`);
const at = (path: string) => `${fixture.origin}${path}`;
type Hits = { quota: number; used: number; remaining: number };
const hits = async () => (await stack.call('GET', '/v1/usage', { headers: key() })).json<{ hits: Hits }>().hits;

async function pdfTool(tool: string, pdf: Buffer, args: string[] = []): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'e2e-pdf-'));
  try {
    await writeFile(join(dir, 'in.pdf'), pdf);
    return (await run(tool, [...args, join(dir, 'in.pdf'), ...(tool === 'pdftotext' ? ['-'] : [])])).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('honest failures over the API', () => {
  describe('When renders fail for fail_on_status and fail_if_content_*, by POST, GET and async', () => {
    it('should answer the documented codes and details, and charge none of them', async () => {
      const before = await hits();
      expect(before.used).toBe(0);

      const missing = await post('screenshot', { url: at('/missing'), fail_on_status: [404, '500-599'] });
      expect(missing.status).toBe(500);
      expect(missing.json()).toMatchObject({
        statusCode: 500,
        code: 'host_returned_error',
        details: [{ parameter: 'fail_on_status', returned_status_code: 404 }],
      });

      const unavailable = await get('pdf', `url=${encodeURIComponent(at('/unavailable'))}&fail_on_status=404,500-599`);
      expect(unavailable.status).toBe(500);
      expect(unavailable.json()).toMatchObject({ code: 'host_returned_error', details: [{ returned_status_code: 503 }] });

      const captcha = await post('scrape', { url: at('/captcha'), fail_if_content_contains: ['Verify you are HUMAN'] });
      expect(captcha.status).toBe(500);
      expect(captcha.json()).toMatchObject({
        code: 'content_contains_specified_string',
        details: [{ parameter: 'fail_if_content_contains', matched_string: 'Verify you are HUMAN' }],
      });

      const lacking = await get('screenshot', `url=${encodeURIComponent(at('/ok'))}&fail_if_content_missing=welcome&fail_if_content_missing=Add%20to%20cart`);
      expect(lacking.status).toBe(500);
      expect(lacking.json()).toMatchObject({ code: 'content_missing_specified_string', details: [{ matched_string: 'Add to cart' }] });

      const queued = await post('screenshot', { url: at('/missing'), fail_on_status: '400-499', async: true });
      expect(queued.status).toBe(202);
      const id = queued.json<{ id: string }>().id;
      const status = () => stack.call('GET', `/v1/renders/${id}`, { headers: key() });
      await until(async () => (await status()).json<{ status: string }>().status === 'failed', 30_000, 'async render failed');
      expect((await status()).json()).toMatchObject({ error: { code: 'host_returned_error' } });

      // Every reservation released: nothing used, nothing held.
      await until(async () => (await hits()).remaining === before.remaining, 10_000, 'the reservations released');
      expect(await hits()).toEqual(before);

      // The same checks passed: rendered and charged once.
      const ok = await post('screenshot', { url: at('/ok'), fail_on_status: ['404', '500-599'], fail_if_content_missing: 'welcome', fail_if_content_contains: 'verify you are human' });
      expect(ok.status).toBe(200);
      expect(ok.headers['content-type']).toBe('image/jpeg');
      await until(async () => (await hits()).used === 1, 10_000, 'the render charged');
      expect(await hits()).toMatchObject({ used: 1, remaining: before.remaining - 1 });
    });
  });

  describe('When bad values are sent', () => {
    it('should answer 400 naming the parameter', async () => {
      for (const [operation, json, parameter] of [
        ['screenshot', { url: at('/ok'), fail_on_status: '700' }, 'fail_on_status'],
        ['screenshot', { url: at('/ok'), fail_if_content_contains: Array.from({ length: 21 }, (_, i) => `s${i}`) }, 'fail_if_content_contains'],
        ['pdf', { url: at('/ok'), pdf_page_ranges: '3-1' }, 'pdf_page_ranges'],
        ['pdf', { url: at('/ok'), pdf_margin: '1em' }, 'pdf_margin'],
        ['pdf', { url: at('/ok'), pdf_scale: 3 }, 'pdf_scale'],
        ['pdf', { url: at('/sheets'), pdf_page_ranges: '9' }, 'pdf_page_ranges'],
      ] as const) {
        const res = await post(operation, json);
        expect(res.status, JSON.stringify(json)).toBe(400);
        expect(res.json()).toMatchObject({ code: 'invalid_parameter', details: [expect.objectContaining({ parameter })] });
      }
    });
  });
});

describe('PDF layout over the API', () => {
  describe('When a PDF is asked for with a sheet size, margins and a page-numbering footer', () => {
    it('should print "page N of 3" on each page of that size', async () => {
      const res = await post('pdf', {
        url: at('/sheets'),
        pdf_width: '5in',
        pdf_height: '7in',
        pdf_margin: '0.5in',
        pdf_footer: '<div style="font-size:10px;width:100%;text-align:center">page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
      });
      expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      expect(await pdfTool('pdfinfo', res.body)).toMatch(/Page size:\s+360 x 504 pts/);
      const pages = (await pdfTool('pdftotext', res.body, ['-layout'])).split('\f').filter((p) => p.trim() !== '');
      expect(pages).toHaveLength(3);
      pages.forEach((text, i) => expect(text).toContain(`page ${i + 1} of 3`));
    });
  });
});
