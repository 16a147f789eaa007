import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '@app/testkit';
import { useRenderer } from './testing/render-harness.js';

// fail_on_status and fail_if_content_*: a page the caller does not want is an error, not a result,
// decided on what the real page answered and shows.
let fixture: FixtureServer;
const answer = (status: number, body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`);
};

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/missing': answer(404, '<h1>Not found</h1>'),
    '/unavailable': answer(503, '<h1>Service unavailable</h1>'),
    '/too-many': answer(429, '<h1>Slow down</h1>'),
    '/moved': (_req, res) => res.writeHead(302, { location: '/missing' }).end(),
    '/ok': answer(200, '<h1>Welcome</h1><p>Our   prices\n start at 10 EUR.</p>'),
    '/captcha': answer(200, '<h1>Verify you are HUMAN</h1><p>Checking your browser...</p>'),
    '/hidden': answer(200, '<h1>Shop</h1><p style="display:none">Out of stock</p><script>var note = "sold out";</script>'),
    '/on-click': answer(200, '<button id="more" onclick="document.body.insertAdjacentHTML(\'beforeend\', \'<p>Price: 12 EUR</p>\')">more</button>'),
  });
});
afterAll(() => fixture?.close());

const r = useRenderer();
const url = (path: string) => `${fixture.origin}${path}`;

describe('honest failures', () => {
  describe('When the main document answers a status fail_on_status lists', () => {
    it.each([
      ['/missing', [404], 404],
      ['/unavailable', '500-599', 503],
      ['/too-many', ['404', '429', '500-599'], 429],
      ['/moved', '400-499', 404],
    ])('should fail %s with host_returned_error and the status in details', async (path, list, status) => {
      await expect(r.render('screenshot', { url: url(path), fail_on_status: list })).rejects.toMatchObject({
        code: 'host_returned_error',
        details: [{ parameter: 'fail_on_status', returned_status_code: status }],
      });
    });
  });

  describe('When the status is not listed, or fail_on_status is not given', () => {
    it('should render the page (an error page renders like any other)', async () => {
      const listedElse = await r.render('screenshot', { url: url('/unavailable'), fail_on_status: [404, '500-502'] });
      expect(listedElse.pageStatus).toBe(503);
      expect((await r.render('screenshot', { url: url('/missing') })).pageStatus).toBe(404);
      expect((await r.render('screenshot', { url: url('/ok'), fail_on_status: '400-599' })).pageStatus).toBe(200);
    });
  });

  describe('When the visible text contains a string of fail_if_content_contains', () => {
    it('should fail with content_contains_specified_string naming the string as given, matched case-insensitively', async () => {
      for (const operation of ['screenshot', 'pdf', 'scrape'] as const) {
        await expect(r.render(operation, { url: url('/captcha'), fail_if_content_contains: ['blocked', 'verify YOU are human'] })).rejects.toMatchObject({
          code: 'content_contains_specified_string',
          details: [{ parameter: 'fail_if_content_contains', matched_string: 'verify YOU are human' }],
        });
      }
    });

    it('should not match text the page does not show (hidden elements, scripts)', async () => {
      const out = await r.render('screenshot', { url: url('/hidden'), fail_if_content_contains: ['out of stock', 'sold out'] });
      expect(out.contentType).toBe('image/jpeg');
    });
  });

  describe('When a string of fail_if_content_missing is not in the visible text', () => {
    it('should fail with content_missing_specified_string naming the first one missing; white space runs count as one', async () => {
      await expect(r.render('pdf', { url: url('/ok'), fail_if_content_missing: ['welcome', 'Our prices start', 'Checkout'] })).rejects.toMatchObject({
        code: 'content_missing_specified_string',
        details: [{ parameter: 'fail_if_content_missing', matched_string: 'Checkout' }],
      });
      const out = await r.render('pdf', { url: url('/ok'), fail_if_content_missing: ['welcome', 'Our prices start'] });
      expect(out.contentType).toBe('application/pdf');
    });

    it('should check the text once the page is prepared (after click_selector), not as it first loaded', async () => {
      await expect(r.render('screenshot', { url: url('/on-click'), fail_if_content_missing: 'price:' })).rejects.toMatchObject({
        code: 'content_missing_specified_string',
      });
      const out = await r.render('screenshot', { url: url('/on-click'), fail_if_content_missing: 'price:', click_selector: '#more' });
      expect(out.contentType).toBe('image/jpeg');
    });
  });
});
