import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createLogger } from '@app/logging';
import { errors } from '@app/errors';
import type { Admitter, ReservationOutcomes } from '../application/ports.js';
import type { RenderSync } from '../application/render-sync.js';
import { storedFile } from '../results/testing/fakes.js';
import { resultsHttpOverFakes } from '../results/testing/results-http.js';
import { buildServer } from './build-server.js';

const KEYS: Record<string, string> = { ak_one: 'acc_1', ak_two: 'acc_2' };
let reservations = 0;
/** Units of quota left to the accounts (reserve refuses past it). */
let quotaLeft = Number.POSITIVE_INFINITY;
const authQuota: Admitter = {
  // No rate lease here: every request is admitted by `admit`.
  tryNow: () => undefined,
  leasesKey: () => false,
  admit: vi.fn(async (req) => {
    const accountId = KEYS[req.accessKey];
    if (!accountId) throw errors.accessKeyInvalid();
    return {
      account: { accountId, plan: 'scale' },
      rateLimit: { limit: 150, remaining: 149, resetUnix: 1_800_000_000 },
      reservationId: req.usage === 'render' && !req.deferQuota ? `res-${++reservations}` : undefined,
    };
  }),
  endReservation: vi.fn(async () => undefined),
  reserve: vi.fn(async () => {
    if (quotaLeft <= 0) throw errors.quotaExceeded(60);
    quotaLeft -= 1;
    return `res-${++reservations}`;
  }),
  usage: vi.fn(async () => ({
    hits: { quota: 1, used: 0, remaining: 1 },
    concurrency: { limit: 0, remaining: 0, reset: 0 },
    renders: { limit: 25, in_flight: 0 },
  })),
};
/** Reservations the requests announced as ended without a job (auth-quota settles them from there). */
const reservationOutcomes: ReservationOutcomes = { ended: vi.fn(async () => undefined) };

const clock = { now: () => new Date() };
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
const renderSync = vi.fn<RenderSync>(async (input) => {
  const objectName = input.placement!.object_name;
  const expiresUnixMs = Date.now() + input.placement!.ttl_ms;
  files.files.set(objectName, { file: storedFile({ objectName, accountId: input.accountId, expiresUnixMs }), body: png, mtimeMs: Date.now() });
  return { body: png, contentType: 'image/png', extension: 'png', headers: {}, kept: { objectName, expiresUnixMs } };
});
let ids = 0;
const results = resultsHttpOverFakes({ renderSync, clock, newId: () => `render-${++ids}`, queueWaitMs: 60_000, waitMarginMs: 1_000 });
const { files, jobs } = results;
let app: FastifyInstance;

beforeAll(async () => {
  app = await buildServer({
    logger: createLogger('edge-http-test', { level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    authQuota,
    reservations: reservationOutcomes,
    renderSync,
    health: async () => ({}),
    asyncRenders: results.http,
  });
});
afterAll(() => app.close());
beforeEach(() => {
  vi.mocked(reservationOutcomes.ended).mockClear();
  vi.mocked(authQuota.reserve).mockClear();
  quotaLeft = Number.POSITIVE_INFINITY;
});

const post = (key: string, payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: '/v1/screenshot', headers: { 'x-access-key': key, host: 'api.example:8443' }, payload });
/** onResponse settles after the response: give it a moment before checking that nothing happened. */
const settled = () => new Promise((r) => setTimeout(r, 20));

describe('async renders over HTTP', () => {
  describe('When async=true', () => {
    it('should answer 202 and leave the reservation to the job (the HTTP hook settles nothing)', async () => {
      const res = await post('ak_one', { url: 'https://example.com/', async: true });
      expect(res.statusCode).toBe(202);
      const body = res.json();
      expect(body).toEqual({ id: expect.any(String), status: 'queued', created: expect.any(Number) });
      await settled();
      expect(reservationOutcomes.ended).not.toHaveBeenCalled();
      expect(jobs.submitted.at(-1)).toMatchObject({ job_id: body.id, reservation_id: expect.stringMatching(/^res-/) });
      expect(jobs.submitted.at(-1)!.files_base_url).toBe('http://api.example:8443/v1/files/');
    });
  });

  describe('When the status is asked', () => {
    it('should show it to its account only', async () => {
      const { id } = (await post('ak_one', { url: 'https://example.com/', async: true })).json();
      const mine = await app.inject({ method: 'GET', url: `/v1/renders/${id}`, headers: { 'x-access-key': 'ak_one' } });
      expect(mine.statusCode).toBe(200);
      expect(mine.json()).toMatchObject({ id, status: 'queued', finished: null, file: null, expires: null, error: null });
      const theirs = await app.inject({ method: 'GET', url: `/v1/renders/${id}`, headers: { 'x-access-key': 'ak_two' } });
      expect(theirs.statusCode).toBe(404);
      expect(theirs.json()).toMatchObject({ code: 'render_not_found' });
    });
  });

  describe('When webhook_url comes without async', () => {
    it('should answer 400 and announce the reservation ended without a job', async () => {
      const res = await post('ak_one', { url: 'https://example.com/', webhook_url: 'https://hooks.example/' });
      expect(res.statusCode).toBe(400);
      await vi.waitFor(() =>
        expect(reservationOutcomes.ended).toHaveBeenCalledWith(expect.objectContaining({ accountId: 'acc_1', succeeded: false })),
      );
    });
  });
});

describe('the render cache over HTTP', () => {
  describe('When the same cached request comes twice', () => {
    it('should MISS (quota reserved, charged from the answer) then HIT (no quota touched, same bytes)', async () => {
      const params = { url: 'https://example.com/cached', cache: true };
      const miss = await post('ak_one', params);
      expect(miss.statusCode).toBe(200);
      expect(miss.headers['x-service-cache']).toBe('MISS');
      expect(authQuota.admit).toHaveBeenLastCalledWith(expect.objectContaining({ deferQuota: true }));
      expect(authQuota.reserve).toHaveBeenCalledWith('acc_1', 'answer');
      const reserved = await vi.mocked(authQuota.reserve).mock.results[0]!.value;
      expect(renderSync).toHaveBeenLastCalledWith(expect.objectContaining({ reservationId: reserved }));
      await vi.waitFor(() => expect(reservationOutcomes.ended).toHaveBeenCalledWith({ accountId: 'acc_1', reservationId: reserved, succeeded: true }));
      vi.mocked(authQuota.reserve).mockClear();
      vi.mocked(reservationOutcomes.ended).mockClear();

      const hit = await post('ak_one', params);
      expect(hit.statusCode).toBe(200);
      expect(hit.headers['x-service-cache']).toBe('HIT');
      expect(hit.rawPayload).toEqual(miss.rawPayload);
      await settled();
      expect(authQuota.reserve).not.toHaveBeenCalled();
      expect(reservationOutcomes.ended).not.toHaveBeenCalled();
      expect(renderSync).toHaveBeenCalledTimes(1);
    });
  });

  describe('When the quota of the month is used up', () => {
    it('should still answer a HIT, and refuse a MISS with 423 before rendering', async () => {
      const params = { url: 'https://example.com/cached-before-quota', cache: true };
      expect((await post('ak_one', params)).headers['x-service-cache']).toBe('MISS');
      const rendered = renderSync.mock.calls.length;
      quotaLeft = 0;

      const hit = await post('ak_one', params);
      expect(hit.statusCode).toBe(200);
      expect(hit.headers['x-service-cache']).toBe('HIT');

      const miss = await post('ak_one', { ...params, url: 'https://example.com/not-cached-yet' });
      expect(miss.statusCode).toBe(423);
      expect(miss.json()).toMatchObject({ statusCode: 423, code: 'quota_exceeded' });
      expect(miss.headers['x-ratelimit-limit']).toBe('150');
      expect(renderSync.mock.calls.length).toBe(rendered);
    });
  });

  describe('When a cached request is also async', () => {
    it('should reserve on a miss only (the job carries the reservation)', async () => {
      const res = await post('ak_one', { url: 'https://example.com/async-cached', cache: true, async: true });
      expect(res.statusCode).toBe(202);
      expect(authQuota.admit).toHaveBeenLastCalledWith(expect.objectContaining({ deferQuota: true }));
      expect(authQuota.reserve).toHaveBeenCalledWith('acc_1', 'job');
      expect(jobs.submitted.at(-1)).toMatchObject({ reservation_id: expect.stringMatching(/^res-/) });
    });
  });

  describe('When another account sends the same cached request', () => {
    it('should MISS', async () => {
      const res = await post('ak_two', { url: 'https://example.com/cached', cache: true });
      expect(res.headers['x-service-cache']).toBe('MISS');
    });
  });
});

describe('GET /v1/files/{name}', () => {
  describe('When the file exists and has not expired', () => {
    it('should serve it without a key', async () => {
      const file = storedFile({ objectName: 'B'.repeat(43), attachmentName: 'shot' });
      files.files.set(file.objectName, { file, body: png, mtimeMs: Date.now() });
      const res = await app.inject({ method: 'GET', url: `/v1/files/${file.objectName}` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['content-disposition']).toBe('attachment; filename="shot.png"');
      expect(res.rawPayload).toEqual(Buffer.from(png));
    });
  });

  describe('When the file is a scraped page', () => {
    it('should serve it in a CSP sandbox (no script of it runs on this origin)', async () => {
      const file = storedFile({ objectName: 'E'.repeat(43), contentType: 'text/html; charset=utf-8', extension: 'html' });
      files.files.set(file.objectName, { file, body: png, mtimeMs: Date.now() });
      const res = await app.inject({ method: 'GET', url: `/v1/files/${file.objectName}` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe('sandbox');
    });
  });

  describe.each([
    ['expired', () => storedFile({ objectName: 'C'.repeat(43), expiresUnixMs: Date.now() - 1 })],
    ['transient (a sync result)', () => storedFile({ objectName: 'D'.repeat(43), kind: 'transient' })],
    ['not a file name', () => storedFile({ objectName: 'short' })],
  ])('When it is %s', (_label, make) => {
    it('should answer 404 file_not_found', async () => {
      const file = make();
      files.files.set(file.objectName, { file, body: png, mtimeMs: Date.now() });
      const res = await app.inject({ method: 'GET', url: `/v1/files/${file.objectName}` });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'file_not_found' });
    });
  });
});
