import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createLogger } from '@app/logging';
import { errors, AppError } from '@app/errors';
import { JetStreamApiError } from '@app/messaging';
import type { Admitter, ReservationOutcomes } from '../application/ports.js';
import type { RenderSync } from '../application/render-sync.js';
import { buildServer } from './build-server.js';

const VALID_KEY = 'ak_valid';

const authQuota: Admitter = {
  // No rate lease here: every request is admitted by `admit`.
  tryNow: () => undefined,
  leasesKey: () => false,
  admit: vi.fn(async (req) => {
    if (req.accessKey !== VALID_KEY) throw errors.accessKeyInvalid();
    return { account: { accountId: 'acc_1', plan: 'basic' }, rateLimit: { limit: 40, remaining: 39, resetUnix: 1_800_000_000 }, reservationId: 'r1' };
  }),
  reserve: vi.fn(async () => 'res-deferred'),
  endReservation: vi.fn(async () => undefined),
  usage: vi.fn(async () => ({
    hits: { quota: 100, used: 7, remaining: 93 },
    concurrency: { limit: 0, remaining: 0, reset: 0 },
    renders: { limit: 5, in_flight: 2 },
  })),
};
const reservations: ReservationOutcomes = { ended: vi.fn(async () => undefined) };

const renderSync = vi.fn<RenderSync>(async () => ({
  body: new Uint8Array([0xff, 0xd8, 0xff]),
  contentType: 'image/jpeg',
  extension: 'jpg',
  headers: {},
}));

let app: FastifyInstance;

beforeAll(async () => {
  app = await buildServer({
    logger: createLogger('edge-http-test', { level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    authQuota,
    reservations,
    renderSync,
    health: async () => ({}),
  });
});

afterAll(async () => app.close());

describe('edge-http routes', () => {
  describe('When the key is wrong', () => {
    it('should answer the exact 401 body and release nothing', async () => {
      const res = await app.inject({ method: 'POST', url: '/v1/screenshot', headers: { 'x-access-key': 'nope' }, payload: { url: 'http://a.test/' } });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Invalid access key', code: 'access_key_invalid' });
      expect(res.headers['x-service-request-id']).toMatch(/^[0-9a-f]{32}$/);
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    });
  });

  describe('When a render succeeds', () => {
    it('should answer the body with rate limit headers, its reservation ended as charged before the answer left', async () => {
      vi.mocked(reservations.ended).mockClear();
      const res = await app.inject({ method: 'POST', url: '/v1/screenshot', headers: { 'x-access-key': VALID_KEY }, payload: { url: 'http://a.test/' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/jpeg');
      expect(res.headers['content-disposition']).toBe('inline');
      expect(res.headers['x-ratelimit-limit']).toBe('40');
      expect(res.headers['x-ratelimit-remaining']).toBe('39');
      expect(res.headers['x-ratelimit-reset']).toBe('1800000000');
      expect(renderSync).toHaveBeenLastCalledWith(expect.objectContaining({ reservationId: 'r1' }));
      expect(vi.mocked(authQuota.admit).mock.lastCall![0].settledBy).toBe('answer');
      expect(reservations.ended).toHaveBeenCalledWith({ accountId: 'acc_1', reservationId: 'r1', succeeded: true });
    });

    it('should carry the security headers that act on any response, and not the ones only HTML pages read', async () => {
      const res = await app.inject({ method: 'POST', url: '/v1/screenshot', headers: { 'x-access-key': VALID_KEY }, payload: { url: 'http://a.test/' } });
      expect(res.headers).toMatchObject({
        'strict-transport-security': 'max-age=31536000; includeSubDomains',
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'SAMEORIGIN',
        'referrer-policy': 'no-referrer',
      });
      for (const pageOnly of ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control', 'x-download-options', 'x-permitted-cross-domain-policies', 'x-xss-protection']) {
        expect(res.headers[pageOnly], pageOnly).toBeUndefined();
      }
    });
  });

  describe("When a scrape answers HTML (someone else's page, served from this origin)", () => {
    it('should serve it in a CSP sandbox, and an image without one', async () => {
      renderSync.mockResolvedValueOnce({ body: Buffer.from('<script>1</script>'), contentType: 'text/html; charset=utf-8', extension: 'html', headers: {} });
      const html = await app.inject({ method: 'POST', url: '/v1/scrape', headers: { 'x-access-key': VALID_KEY }, payload: { url: 'http://a.test/' } });
      expect(html.statusCode).toBe(200);
      expect(html.headers['content-security-policy']).toBe('sandbox');
      const image = await app.inject({ method: 'POST', url: '/v1/screenshot', headers: { 'x-access-key': VALID_KEY }, payload: { url: 'http://a.test/' } });
      expect(image.headers['content-type']).toBe('image/jpeg');
      expect(image.headers['content-security-policy']).toBeUndefined();
    });
  });

  describe('When a POST carries a body', () => {
    it('should send auth-quota the body only when it is signed in X-Signature', async () => {
      const payload = JSON.stringify({ url: 'http://a.test/' });
      const headers = { 'x-access-key': VALID_KEY, 'content-type': 'application/json' };
      await app.inject({ method: 'POST', url: '/v1/screenshot', headers, payload });
      expect(vi.mocked(authQuota.admit).mock.lastCall![0].body.byteLength).toBe(0);
      await app.inject({ method: 'POST', url: '/v1/screenshot', headers: { ...headers, 'x-signature': 'abc' }, payload });
      expect(Buffer.from(vi.mocked(authQuota.admit).mock.lastCall![0].body).toString()).toBe(payload);
    });
  });

  describe('When the parameters are invalid', () => {
    it('should answer 400 with every problem and announce the reservation ended without a job', async () => {
      vi.mocked(reservations.ended).mockClear();
      const res = await app.inject({
        method: 'POST',
        url: '/v1/screenshot',
        headers: { 'x-access-key': VALID_KEY },
        payload: { format: 'bmp', viewport_width: -1 },
      });
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.code).toBe('invalid_parameter');
      expect(body.details.map((d: { parameter: string }) => d.parameter).sort()).toEqual(['format', 'url', 'viewport_width']);
      await vi.waitFor(() =>
        expect(reservations.ended).toHaveBeenCalledWith({ accountId: 'acc_1', reservationId: 'r1', succeeded: false }),
      );
    });
  });

  describe('When the body is not JSON', () => {
    it('should answer 400 naming the body', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/screenshot',
        headers: { 'x-access-key': VALID_KEY, 'content-type': 'application/json' },
        payload: '{not json',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'body' }] });
    });
  });

  describe('When the body is sent with another media type', () => {
    it('should answer 415 unsupported_media_type in the same error shape', async () => {
      const res = await app.inject({ method: 'POST', url: '/v1/screenshot', headers: { 'x-access-key': VALID_KEY, 'content-type': 'application/xml' }, payload: '<a/>' });
      expect(res.statusCode).toBe(415);
      expect(res.json()).toMatchObject({ statusCode: 415, error: 'Unsupported Media Type', code: 'unsupported_media_type' });
      expect(res.headers['x-service-request-id']).toMatch(/^[0-9a-f]{32}$/);
    });
  });

  describe('When the URL is badly percent-encoded', () => {
    it('should answer 400 bad_request with the request id and HSTS', async () => {
      const res = await app.inject({ method: 'GET', url: '/v1/files/%E0%A4%A' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'bad_request' });
      expect(res.headers['x-service-request-id']).toMatch(/^[0-9a-f]{32}$/);
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    });
  });

  describe('When a render is asked for with HEAD', () => {
    it('should answer like GET (the query holds the parameters), without a body', async () => {
      const url = '/v1/screenshot?access_key=ak_valid&url=http%3A%2F%2Fa.test%2F&attachment_name=shot';
      const [get, head] = await Promise.all([app.inject({ method: 'GET', url }), app.inject({ method: 'HEAD', url })]);
      expect(get.statusCode).toBe(200);
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
      for (const name of ['content-type', 'content-length', 'content-disposition']) expect(head.headers[name]).toEqual(get.headers[name]);
    });
  });

  describe('When the renderer fails unexpectedly', () => {
    it('should answer a bare 500 that leaks nothing', async () => {
      renderSync.mockRejectedValueOnce(new Error('secret internal detail at /srv/x.js:12'));
      const res = await app.inject({ method: 'POST', url: '/v1/pdf', headers: { 'x-access-key': VALID_KEY }, payload: { html: '<p>x</p>' } });
      expect(res.statusCode).toBe(500);
      expect(res.body).not.toContain('secret');
      expect(res.json()).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'An internal error occurred.', code: 'internal_error' });
    });
  });

  describe('When a stream of the bus has no leader for a moment (a NATS node lost)', () => {
    it('should answer 503 service_unavailable with Retry-After, not a 500', async () => {
      renderSync.mockRejectedValueOnce(new JetStreamApiError({ code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' }));
      const res = await app.inject({ method: 'POST', url: '/v1/pdf', headers: { 'x-access-key': VALID_KEY }, payload: { html: '<p>x</p>' } });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ statusCode: 503, code: 'service_unavailable' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });
  });

  describe('When the render times out', () => {
    it('should answer 500 render_timeout', async () => {
      renderSync.mockRejectedValueOnce(errors.renderTimeout(5));
      const res = await app.inject({ method: 'GET', url: `/v1/scrape?access_key=${VALID_KEY}&url=http://a.test/&timeout=5` });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({ code: 'render_timeout' });
    });
  });

  describe('When the account is rate limited', () => {
    it('should answer 429 with Retry-After', async () => {
      vi.mocked(authQuota.admit).mockRejectedValueOnce(errors.rateLimited(17));
      const res = await app.inject({ method: 'POST', url: '/v1/screenshot', headers: { 'x-access-key': VALID_KEY }, payload: { html: 'x' } });
      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toBe('17');
      expect(res.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'rate_limited' });
    });
  });

  describe('When the usage is asked for', () => {
    it('should answer hits and the rate limit state of the decisions', async () => {
      const res = await app.inject({ method: 'GET', url: '/v1/usage', headers: { 'x-access-key': VALID_KEY } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        hits: { quota: 100, used: 7, remaining: 93 },
        concurrency: { limit: 40, remaining: 39, reset: 1_800_000_000 },
        renders: { limit: 5, in_flight: 2 },
      });
    });
  });

  describe('When an admitted request is refused later with rate limit state', () => {
    it('should still carry the X-RateLimit headers', async () => {
      const refused = errors.quotaExceeded(3600);
      refused.rateLimit = { limit: 40, remaining: 12, resetUnix: 1_800_000_060 };
      vi.mocked(authQuota.admit).mockRejectedValueOnce(refused);
      const res = await app.inject({ method: 'POST', url: '/v1/screenshot', headers: { 'x-access-key': VALID_KEY }, payload: { html: 'x' } });
      expect(res.statusCode).toBe(423);
      expect(res.json()).toEqual({ statusCode: 423, error: 'Locked', message: 'The monthly render quota of the account is used up.', code: 'quota_exceeded' });
      expect(res.headers['x-ratelimit-remaining']).toBe('12');
      expect(res.headers['retry-after']).toBe('3600');
    });
  });

  describe('When the route does not exist', () => {
    it('should answer 404 in the same error shape', async () => {
      const res = await app.inject({ method: 'GET', url: '/v1/nothing' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ statusCode: 404, code: 'not_found' });
    });
  });

  describe('When the health endpoint is called without a key', () => {
    it('should answer 200', async () => {
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    });
  });

  describe('When a scrape gets an AppError from the renderer', () => {
    it('should keep its code and message', async () => {
      renderSync.mockRejectedValueOnce(new AppError('selector_not_found', 'click_selector: no element matches #x.'));
      const res = await app.inject({ method: 'POST', url: '/v1/scrape', headers: { 'x-access-key': VALID_KEY }, payload: { url: 'http://a.test/' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'selector_not_found', message: 'click_selector: no element matches #x.' });
    });
  });

  describe('When the caller of a synchronous render goes away before its answer', () => {
    it('should abort the render it waits for and release its reservation uncharged', async () => {
      const ended = vi.fn<ReservationOutcomes['ended']>(async () => undefined);
      const signals: AbortSignal[] = [];
      const server = await buildServer({
        logger: createLogger('edge-http-test', { level: 'silent' }),
        bodyLimitBytes: 1024 * 1024,
        authQuota,
        reservations: { ended },
        renderSync: async (input) => {
          // A render that lasts until its caller is gone.
          const signal = input.callerGone!;
          signals.push(signal);
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          throw new AppError('render_failed', 'abandoned');
        },
        health: async () => ({}),
      });
      await server.listen({ port: 0, host: '127.0.0.1' });
      try {
        const { port } = server.server.address() as AddressInfo;
        const req = httpRequest({ port, method: 'POST', path: '/v1/screenshot', headers: { 'x-access-key': VALID_KEY, 'content-type': 'application/json' } });
        req.on('error', () => undefined);
        req.end(JSON.stringify({ url: 'http://a.test/' }));
        await vi.waitFor(() => expect(signals).toHaveLength(1), { timeout: 5_000 });
        expect(signals[0]!.aborted).toBe(false);
        req.destroy();
        await vi.waitFor(() => expect(signals[0]!.aborted).toBe(true), { timeout: 5_000 });
        await vi.waitFor(() => expect(ended).toHaveBeenCalledWith({ accountId: 'acc_1', reservationId: 'r1', succeeded: false }), { timeout: 5_000 });
      } finally {
        await server.close();
      }
    });
  });
});
