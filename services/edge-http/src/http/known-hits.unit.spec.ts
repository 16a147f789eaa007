import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { createLogger } from '@app/logging';
import { errors } from '@app/errors';
import type { AdmitRequest, Admitted, Admitter } from '../application/ports.js';
import type { RenderSync } from '../application/render-sync.js';
import { storedFile } from '../results/testing/fakes.js';
import { resultsHttpOverFakes } from '../results/testing/results-http.js';
import { buildServer } from './build-server.js';

// Cache hits answered beneath Fastify (known-hits.ts), over a real socket: inject() would go around the
// server the answer lives in. What Fastify sees is counted by an onRequest hook of its own.

const LEASED = 'ak_leased'; // admitted here by a rate lease (tryNow)
const UNLEASED = 'ak_unleased'; // admitted by auth-quota (admit)
const admittedAs = (remaining: number): Admitted => ({
  account: { accountId: 'acc_1', plan: 'scale' },
  rateLimit: { limit: 1000, remaining, resetUnix: 1_800_000_000 },
});
/** Units of the lease spent, and what each admission was asked. */
let spent = 0;
const asked: AdmitRequest[] = [];
const authQuota: Admitter = {
  tryNow: (request) => {
    if (request.accessKey !== LEASED) return undefined;
    asked.push(request);
    spent += 1;
    return admittedAs(1000 - spent);
  },
  leasesKey: (accessKey) => accessKey === LEASED,
  admit: vi.fn(async (request) => {
    asked.push(request);
    if (request.accessKey !== UNLEASED && request.accessKey !== LEASED) throw errors.accessKeyInvalid();
    return admittedAs(500);
  }),
  reserve: vi.fn(async () => 'res-1'),
  endReservation: vi.fn(async () => undefined),
  usage: vi.fn(async () => ({ hits: { quota: 1, used: 0, remaining: 1 }, concurrency: { limit: 0, remaining: 0, reset: 0 }, renders: { limit: 5, in_flight: 0 } })),
};

const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const renderSync = vi.fn<RenderSync>(async (input) => {
  if (!input.placement) return { body: jpeg, contentType: 'image/jpeg', extension: 'jpg', headers: {} };
  const objectName = input.placement!.object_name;
  const expiresUnixMs = Date.now() + input.placement!.ttl_ms;
  const file = storedFile({ objectName, accountId: input.accountId, expiresUnixMs, contentType: 'image/jpeg', extension: 'jpg', headers: { 'x-service-rendered-url': 'http://a.test/' } });
  files.files.set(objectName, { file, body: jpeg, mtimeMs: Date.now() });
  return { body: jpeg, contentType: 'image/jpeg', extension: 'jpg', headers: file.headers, kept: { objectName, expiresUnixMs } };
});
const clock = { now: () => new Date() };
// The edge's own wiring of the cache: entries and files it has read are held in memory.
const results = resultsHttpOverFakes({ renderSync, clock, newId: () => 'id', queueWaitMs: 60_000, waitMarginMs: 1_000, heldInMemory: true });
const { files } = results;

let available = true;
let seenByFastify = 0;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  app = await buildServer({
    logger: createLogger('edge-http-test', { level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    authQuota,
    reservations: { ended: vi.fn(async () => undefined) },
    renderSync,
    health: async () => ({}),
    available: () => available,
    asyncRenders: results.http,
    pages: fp(async (fastify: FastifyInstance) => {
      fastify.addHook('onRequest', (_request, _reply, done) => {
        seenByFastify += 1;
        done();
      });
    }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(() => app.close());
beforeEach(() => {
  available = true;
  seenByFastify = 0;
  spent = 0;
  asked.length = 0;
  renderSync.mockClear();
  vi.mocked(authQuota.admit).mockClear();
});

const post = async (key: string, body: string, operation = 'screenshot') => {
  const res = await fetch(`${base}/v1/${operation}`, { method: 'POST', headers: { 'x-access-key': key, 'content-type': 'application/json' }, body });
  return { status: res.status, headers: Object.fromEntries(res.headers), bytes: new Uint8Array(await res.arrayBuffer()) };
};
/** Headers that differ between any two answers by nature. */
const comparable = (headers: Record<string, string>) => {
  const { date: _d, 'x-service-request-id': _id, 'x-ratelimit-remaining': _r, 'keep-alive': _k, connection: _c, ...rest } = headers;
  return rest;
};

describe('cache hits answered beneath Fastify', () => {
  describe('When a leased key asks for a render whose hit this edge holds', () => {
    it('should answer it without Fastify, as Fastify answers the same hit, spending one unit of the lease', async () => {
      const body = JSON.stringify({ url: 'http://a.test/', cache: true, attachment_name: 'shot' });
      expect((await post(LEASED, body)).headers['x-service-cache']).toBe('MISS');
      // The first hit reads the file (Fastify answers it); from then on this edge holds it.
      await post(LEASED, body);
      seenByFastify = 0;
      spent = 0;
      renderSync.mockClear();

      const beneath = await post(LEASED, body);
      expect(seenByFastify).toBe(0);
      expect(spent).toBe(1);
      expect(beneath.status).toBe(200);
      expect(beneath.bytes).toEqual(jpeg);
      expect(beneath.headers['x-service-request-id']).toMatch(/^[0-9a-f]{32}$/);
      expect(beneath.headers['x-ratelimit-remaining']).toBe('999');

      // The same input past the size answered beneath Fastify (padding after the JSON): Fastify answers the hit.
      const throughFastify = await post(LEASED, body + ' '.repeat(5_000));
      expect(seenByFastify).toBe(1);
      expect(throughFastify.headers['x-service-cache']).toBe('HIT');
      expect(comparable(beneath.headers)).toEqual(comparable(throughFastify.headers));
      expect(comparable(beneath.headers)).toMatchObject({
        'x-service-cache': 'HIT',
        'content-type': 'image/jpeg',
        'content-disposition': 'attachment; filename="shot.jpg"',
        'content-length': String(jpeg.length),
        'strict-transport-security': 'max-age=31536000; includeSubDomains',
        'x-service-rendered-url': 'http://a.test/',
        'x-ratelimit-limit': '1000',
      });
      expect(renderSync).toHaveBeenCalledTimes(0);
    });
  });

  describe('When the lease admits a render whose hit this edge does not hold', () => {
    it('should hand it to Fastify with its body and its admission: rendered once, the lease spent once, auth-quota not asked', async () => {
      const res = await post(LEASED, JSON.stringify({ url: 'http://b.test/', cache: true }));
      expect(res.status).toBe(200);
      expect(res.headers['x-service-cache']).toBe('MISS');
      expect(res.bytes).toEqual(jpeg);
      expect(seenByFastify).toBe(1);
      expect(spent).toBe(1);
      expect(authQuota.admit).not.toHaveBeenCalled();
      expect(renderSync).toHaveBeenCalledTimes(1);
      expect(renderSync.mock.calls[0]![0].params.url).toBe('http://b.test/');
    });
  });

  describe('When a key has no lease here', () => {
    it('should leave admission to Fastify and auth-quota, which answer the hit', async () => {
      const body = JSON.stringify({ url: 'http://a.test/', cache: true, attachment_name: 'shot' });
      const res = await post(UNLEASED, body);
      expect(res.headers['x-service-cache']).toBe('HIT');
      expect(res.headers['x-ratelimit-remaining']).toBe('500');
      expect(seenByFastify).toBe(1);
      expect(authQuota.admit).toHaveBeenCalledTimes(1);
    });
  });

  describe('When the body read beneath Fastify is not a valid render', () => {
    it('should give Fastify the body to refuse: invalid JSON', async () => {
      const res = await post(LEASED, '{"url": "http://a.test/", "cache": tru');
      expect(res.status).toBe(400);
      expect(JSON.parse(Buffer.from(res.bytes).toString())).toMatchObject({ statusCode: 400 });
      expect(res.headers['x-service-request-id']).toMatch(/^[0-9a-f]{32}$/);
      expect(seenByFastify).toBe(1);
      expect(spent).toBe(0);
    });

    it('should give Fastify the body to refuse: a parameter that is not valid is named', async () => {
      const res = await post(LEASED, JSON.stringify({ url: 'not a url', cache: true }));
      expect(res.status).toBe(400);
      expect(Buffer.from(res.bytes).toString()).toContain('url');
      expect(seenByFastify).toBe(1);
    });
  });

  describe('When a render is not a synchronous cache request', () => {
    it('should go to Fastify untouched: without cache, rendered as usual', async () => {
      const res = await post(LEASED, JSON.stringify({ url: 'http://a.test/' }));
      expect(res.status).toBe(200);
      expect(res.headers['x-service-cache']).toBeUndefined();
      expect(seenByFastify).toBe(1);
      expect(spent).toBe(1);
      expect(asked[0]).toMatchObject({ usage: 'render', deferQuota: false, settledBy: 'answer' });
    });
  });

  describe('When the bus is down', () => {
    it('should leave the answer to Fastify, which refuses 503 before any admission', async () => {
      available = false;
      const res = await post(LEASED, JSON.stringify({ url: 'http://a.test/', cache: true, attachment_name: 'shot' }));
      expect(res.status).toBe(503);
      expect(seenByFastify).toBe(1);
      expect(spent).toBe(0);
    });
  });
});
