import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentials } from '@grpc/grpc-js';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { callUnary } from '@app/rpc';
import { createLogger } from '@app/logging';
import { isAppError } from '@app/errors';
import { announceReservationEnded } from '@app/admission-client';
import { SUBJECTS, connectNats, jetstream, type NatsConnection, type RenderOrigin } from '@app/messaging';
import { RenderFinished } from '@app/proto/render';
import { startNatsServer, type RunningNats } from '@app/stack';
import { until } from '@app/testkit';
import { createApp, type AuthQuotaApp } from '../../app.js';
import { parseConfig } from '../../config.js';

// The generated gRPC client against the real server on port 0, with a real SQLite event store and a real
// NATS server (the limits live in its KV bucket; reservations settle from render outcomes on its stream).
let app: AuthQuotaApp;
let client: AuthQuotaServiceClient;
let dataDir: string;
let nats: RunningNats;
let nc: NatsConnection;

const configOf = (env: Record<string, string> = {}) =>
  parseConfig({
    DATA_DIR: dataDir,
    NATS_URL: nats.url,
    AUTH_QUOTA_GRPC_ADDR: '127.0.0.1:0',
    AUTH_QUOTA_HEALTH_PORT: '0',
    PLAN_FREE_QUOTA: '2',
    PLAN_GROWTH_RENDERS_IN_FLIGHT: '2',
    ...env,
  });
const logger = createLogger('auth-quota-test', { level: 'silent' });

/** A render job's outcome, as its renderer announces it (an async render's by default: its job settles it). */
const renderFinished = async (accountId: string, reservationId: string, status: 'succeeded' | 'failed', origin: RenderOrigin = 'async') => {
  const event = RenderFinished.fromPartial({
    job_id: `job-${reservationId}`,
    account_id: accountId,
    status,
    origin: 'api',
    reservation_id: reservationId,
    ...(status === 'succeeded' ? { result: { object_name: 'x', content_type: 'image/png', extension: 'png', size: 1, headers: {}, expires_unix_ms: 0 } } : {}),
  });
  await jetstream(nc).publish(SUBJECTS.renderEvent(origin, 'finished', event.job_id), RenderFinished.encode(event).finish());
};
const usageOf = (accountId: string) => callUnary(client, client.getUsage, { account_id: accountId });

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return isAppError(err) ? err.code : `not an AppError: ${String(err)}`;
  }
  return 'no error';
};

type AdmitExtra = Partial<{ usage: string; features: string[]; defer_quota: boolean; lease_units: number; signature: string; signed_query: string; settled_by: string }>;

const admit = (accessKey: string, extra: AdmitExtra = {}) =>
  callUnary(client, client.admitRequest, {
    access_key: accessKey,
    usage: extra.usage ?? 'render',
    defer_quota: extra.defer_quota,
    features: extra.features ?? [],
    signature: extra.signature,
    signed_query: extra.signed_query ?? '',
    body: Buffer.alloc(0),
    lease_units: extra.lease_units,
    settled_by: extra.settled_by,
  });

/** A render an edge may answer from its cache, asking for a rate lease of `units`. */
const cacheableRender: (units: number) => AdmitExtra = (units) => ({ defer_quota: true, lease_units: units });

const returnLease = (account_id: string, lease_id: string, unused: number) =>
  callUnary(client, client.returnRateLease, { account_id, lease_id, unused });

const errorOf = (p: Promise<unknown>) => p.then(() => undefined, (err: unknown) => err);

/**
 * The limits count per one-minute window of the real clock: a test that counts within one window waits
 * for the next when this one ends within `needMs`.
 */
const inOneWindow = async (needMs = 10_000) => {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'auth-quota-'));
  nats = await startNatsServer({ storeDir: join(dataDir, 'nats') });
  nc = await connectNats({ servers: nats.url, name: 'auth-quota-test' });
  app = await createApp(configOf(), logger);
  await app.start();
  client = new AuthQuotaServiceClient(`127.0.0.1:${app.grpcPort()}`, credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await app?.stop();
  await nc?.drain();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('AuthQuotaService over gRPC', () => {
  describe('When an account is created', () => {
    it('should return its keys once and authenticate with the access key', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'A', plan: 'basic' });
      expect(created.access_key).toMatch(/^ak_/);
      expect(created.secret_key).toMatch(/^sk_/);
      const auth = await callUnary(client, client.authenticate, { access_key: created.access_key });
      expect(auth.account).toMatchObject({ account_id: created.account!.account_id, plan: 'basic', billing_status: 'paid' });
    });
  });

  describe('When the key is unknown', () => {
    it('should fail with UNAUTHENTICATED carrying access_key_invalid', async () => {
      expect(await codeOf(callUnary(client, client.authenticate, { access_key: 'ak_unknown' }))).toBe('access_key_invalid');
      expect(await codeOf(admit(''))).toBe('access_key_invalid');
    });
  });

  describe('When keys are rotated', () => {
    it('should refuse the old key at once and accept the new one', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'R', plan: 'scale' });
      const rotated = await callUnary(client, client.rotateKeys, { account_id: created.account!.account_id });
      expect(await codeOf(admit(created.access_key))).toBe('access_key_invalid');
      expect((await admit(rotated.access_key)).account?.account_id).toBe(created.account!.account_id);
    });
  });

  describe('When a Scale-only feature is used on another plan', () => {
    it('should fail with plan_upgrade_required', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'P', plan: 'growth' });
      expect(await codeOf(admit(created.access_key, { features: ['gpu_rendering'] }))).toBe('plan_upgrade_required');
    });
  });

  describe('When the account has an unpaid invoice', () => {
    it('should fail with payment_required', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'U', plan: 'basic' });
      await callUnary(client, client.setBillingStatus, { account_id: created.account!.account_id, billing_status: 'unpaid' });
      expect(await codeOf(admit(created.access_key))).toBe('payment_required');
    });
  });

  describe('When the monthly quota is reserved up to its size', () => {
    it('should refuse more with quota_exceeded, and a failed render gives its unit back', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'Q', plan: 'free' });
      const accountId = created.account!.account_id;
      const first = await admit(created.access_key);
      await admit(created.access_key);
      expect(await codeOf(admit(created.access_key))).toBe('quota_exceeded');
      await renderFinished(accountId, first.reservation_id!, 'failed');
      await until(async () => (await usageOf(accountId)).remaining === 1, 10_000, 'the release');
      expect((await admit(created.access_key)).reservation_id).toBeTruthy();
      expect(await usageOf(accountId)).toMatchObject({ used: 0, remaining: 0 });
    });
  });

  describe('When a reservation is settled by its answer (a synchronous render)', () => {
    const endReservation = (account_id: string, reservation_id: string, succeeded: boolean) =>
      callUnary(client, client.endReservation, { account_id, reservation_id, succeeded });

    it("should ignore its job's outcome and end it when its holder says, released before EndReservation returns", async () => {
      const created = await callUnary(client, client.createAccount, { name: 'S', plan: 'free' });
      const accountId = created.account!.account_id;
      const first = await admit(created.access_key, { settled_by: 'answer' });
      await renderFinished(accountId, first.reservation_id!, 'succeeded', 'sync');
      const other = await admit(created.access_key, { settled_by: 'answer' });
      // The job's outcome came before the second admission was decided: it was read (or is ignored).
      await new Promise((r) => setTimeout(r, 300));
      expect(await usageOf(accountId)).toMatchObject({ used: 0, renders_in_flight: 2 });
      expect(await endReservation(accountId, first.reservation_id!, false)).toEqual({ result: 'released' });
      expect(await usageOf(accountId)).toMatchObject({ used: 0, renders_in_flight: 1 });
      expect(await endReservation(accountId, first.reservation_id!, true)).toEqual({ result: 'repeated' });
      expect(await endReservation(accountId, other.reservation_id!, true)).toEqual({ result: 'committed' });
      expect(await usageOf(accountId)).toMatchObject({ used: 1, renders_in_flight: 0 });
    });

    it('should take the end its holder announced on the bus when it could not call (auth-quota unreachable)', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'T', plan: 'free' });
      const accountId = created.account!.account_id;
      const first = await admit(created.access_key, { settled_by: 'answer' });
      await announceReservationEnded(jetstream(nc), { accountId, reservationId: first.reservation_id!, succeeded: true, origin: 'api' });
      await until(async () => (await usageOf(accountId)).renders_in_flight === 0, 10_000, 'the settlement');
      expect(await usageOf(accountId)).toMatchObject({ used: 1 });
    });

    it("should never let a holder commit a job's reservation, only release it (no job carries it)", async () => {
      const created = await callUnary(client, client.createAccount, { name: 'U', plan: 'free' });
      const accountId = created.account!.account_id;
      const byJob = await admit(created.access_key);
      expect(await endReservation(accountId, byJob.reservation_id!, true)).toEqual({ result: 'ignored' });
      expect(await endReservation(accountId, byJob.reservation_id!, false)).toEqual({ result: 'released' });
      expect(await usageOf(accountId)).toMatchObject({ used: 0, renders_in_flight: 0 });
    });
  });

  describe('When renders succeed and their outcome comes twice', () => {
    it('should commit each once', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'C', plan: 'free' });
      const accountId = created.account!.account_id;
      const first = await admit(created.access_key);
      await renderFinished(accountId, first.reservation_id!, 'succeeded');
      await renderFinished(accountId, first.reservation_id!, 'succeeded');
      await renderFinished(accountId, first.reservation_id!, 'failed');
      await until(async () => (await usageOf(accountId)).used === 1, 10_000, 'the commit');
      const second = await admit(created.access_key);
      await renderFinished(accountId, second.reservation_id!, 'succeeded');
      await until(async () => (await usageOf(accountId)).used === 2, 10_000, 'the second commit');
      expect(await usageOf(accountId)).toMatchObject({ quota: 2, used: 2, remaining: 0, renders_in_flight: 0 });
    });
  });

  describe('When an outcome names a reservation nobody made', () => {
    it('should count it as an error (and change no usage)', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'N', plan: 'free' });
      const before = app.unknownSettlements();
      await renderFinished(created.account!.account_id, 'res-that-never-was', 'succeeded');
      await until(async () => app.unknownSettlements() === before + 1, 10_000, 'the unknown settlement counted');
      expect(await usageOf(created.account!.account_id)).toMatchObject({ used: 0 });
    });
  });

  describe('When an account has as many renders in flight as its plan allows', () => {
    it('should refuse one more with concurrency_limited and a Retry-After, and admit again once one ends', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'F', plan: 'growth' });
      const accountId = created.account!.account_id;
      const first = await admit(created.access_key);
      await admit(created.access_key);
      const refused = await admit(created.access_key).catch((err: unknown) => err);
      expect(refused).toMatchObject({ code: 'concurrency_limited', retryAfterSeconds: expect.any(Number) });
      expect(await usageOf(accountId)).toMatchObject({ renders_limit: 2, renders_in_flight: 2 });
      await renderFinished(accountId, first.reservation_id!, 'succeeded');
      await until(async () => (await usageOf(accountId)).renders_in_flight === 1, 10_000, 'the render to end');
      expect((await admit(created.access_key)).reservation_id).toBeTruthy();
    });

    it('should still admit a task created (it holds quota, not a render) and never count it in flight', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'G', plan: 'growth' });
      const accountId = created.account!.account_id;
      await admit(created.access_key);
      await admit(created.access_key);
      expect(await codeOf(admit(created.access_key))).toBe('concurrency_limited');
      const task = await admit(created.access_key, { usage: 'task_create', settled_by: 'answer' });
      expect(task.reservation_id).toBeTruthy();
      expect(await usageOf(accountId)).toMatchObject({ renders_in_flight: 2 });
      await callUnary(client, client.endReservation, { account_id: accountId, reservation_id: task.reservation_id!, succeeded: true });
      expect(await usageOf(accountId)).toMatchObject({ renders_in_flight: 2, used: 1 });
    });
  });

  describe('When the same admission is asked twice (a retry on another replica)', () => {
    it('should answer the same reservation and hold one unit', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'I', plan: 'free' });
      const ask = () =>
        callUnary(client, client.admitRequest, {
          access_key: created.access_key,
          usage: 'render',
          features: [],
          signed_query: '',
          body: Buffer.alloc(0),
          admission_id: 'admission-retried-1',
        });
      const a = await ask();
      const b = await ask();
      expect(b.reservation_id).toBe(a.reservation_id);
      expect(await usageOf(created.account!.account_id)).toMatchObject({ remaining: 1, renders_in_flight: 1 });
    });
  });

  describe('When a second replica runs on the same bus and store', () => {
    it('should share the quota exactly and refuse a key rotated through the other at once', async () => {
      const second = await createApp(configOf(), logger);
      await second.start();
      const other = new AuthQuotaServiceClient(`127.0.0.1:${second.grpcPort()}`, credentials.createInsecure());
      try {
        const created = await callUnary(client, client.createAccount, { name: 'two', plan: 'free' });
        const request = { access_key: created.access_key, usage: 'render', features: [], signed_query: '', body: Buffer.alloc(0) };
        // Admissions of one account over both replicas at once: exactly the quota (2) is reserved, and
        // the rate limit (5 a minute) is counted once for both.
        const outcomes = await Promise.all(
          Array.from({ length: 7 }, (_, i) => codeOf(callUnary(i % 2 ? other : client, i % 2 ? other.admitRequest : client.admitRequest, request))),
        );
        expect(outcomes.filter((c) => c === 'no error'), outcomes.join()).toHaveLength(2);
        expect(outcomes.filter((c) => c === 'quota_exceeded'), outcomes.join()).toHaveLength(3);
        expect(outcomes.filter((c) => c === 'rate_limited'), outcomes.join()).toHaveLength(2);

        const rotated = await callUnary(client, client.rotateKeys, { account_id: created.account!.account_id });
        const old = { ...request, usage: 'task_other' };
        expect(await codeOf(callUnary(other, other.admitRequest, old))).toBe('access_key_invalid');
        expect(await codeOf(callUnary(other, other.authenticate, { access_key: rotated.access_key }))).toBe('no error');
      } finally {
        other.close();
        await second.stop();
      }
    });
  });

  describe('When admissions come in one batch', () => {
    it('should decide each in order as if alone and answer each at its position', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'B', plan: 'free' });
      const request = (access_key: string) => ({ access_key, usage: 'read', features: [], signed_query: '', body: Buffer.alloc(0) });
      // Free plan: 5 requests a minute.
      const keys = [created.access_key, 'ak_unknown', ...Array.from({ length: 6 }, () => created.access_key)];
      const { outcomes } = await callUnary(client, client.admitRequests, { requests: keys.map(request) });
      expect(outcomes.map((o) => (o.result?.$case === 'admitted' ? 'ok' : o.result?.value.code))).toEqual([
        'ok', 'access_key_invalid', 'ok', 'ok', 'ok', 'ok', 'rate_limited', 'rate_limited',
      ]);
      const admitted = outcomes.flatMap((o) => (o.result?.$case === 'admitted' ? [o.result.value] : []));
      expect(admitted.map((a) => a.rate_limit?.remaining)).toEqual([4, 3, 2, 1, 0]);
      const refused = outcomes[6]!.result;
      expect(refused?.$case === 'refused' && refused.value).toMatchObject({
        message: expect.stringContaining('Too many requests'),
        retry_after_seconds: expect.any(Number),
        rate_limit: { limit: 5, remaining: 0 },
      });
    });
  });

  describe('When a render that may be a cache hit defers its quota', () => {
    it('should admit it without a reservation, even past the quota, and ReserveQuota reserves up to the quota', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'D', plan: 'free' });
      const accountId = created.account!.account_id;
      const deferred = await admit(created.access_key, { defer_quota: true });
      expect(deferred.reservation_id).toBeUndefined();
      expect(deferred.rate_limit?.remaining).toBeGreaterThanOrEqual(0);
      const reserved = await callUnary(client, client.reserveQuota, { account_id: accountId });
      expect(reserved.reservation_id).toBeTruthy();
      await callUnary(client, client.reserveQuota, { account_id: accountId });
      expect(await codeOf(callUnary(client, client.reserveQuota, { account_id: accountId }))).toBe('quota_exceeded');
      expect(await codeOf(admit(created.access_key))).toBe('quota_exceeded');
      expect((await admit(created.access_key, { defer_quota: true })).account?.account_id).toBe(accountId);
    });
  });

  describe('When an edge asks for a rate lease on a render that defers its quota', () => {
    it('should grant a quarter of what is left of the window, counted at once in rate_limit.remaining', async () => {
      await inOneWindow();
      // Basic plan: 40 requests a minute. This request counts 1, the lease a quarter of the 39 left.
      const created = await callUnary(client, client.createAccount, { name: 'L', plan: 'basic' });
      const admitted = await admit(created.access_key, cacheableRender(100));
      expect(admitted.reservation_id).toBeUndefined();
      expect(admitted.lease).toMatchObject({ lease_id: expect.any(String), units: 9 });
      expect(admitted.lease!.valid_ms).toBeGreaterThan(0);
      expect(admitted.lease!.valid_ms).toBeLessThanOrEqual(1_000);
      expect(admitted.rate_limit).toMatchObject({ limit: 40, remaining: 30 });
      expect((await usageOf(created.account!.account_id)).rate_limit?.remaining).toBe(30);
    });

    it('should grant no lease without lease_units, to a render that reserves quota, to another usage or to an internal caller', async () => {
      await inOneWindow();
      const created = await callUnary(client, client.createAccount, { name: 'L0', plan: 'basic' });
      const unasked = await admit(created.access_key, { defer_quota: true });
      expect(unasked.lease).toBeUndefined();
      expect(unasked.rate_limit?.remaining).toBe(39);
      const reserving = await admit(created.access_key, { lease_units: 10 });
      expect(reserving.reservation_id).toBeTruthy();
      expect(reserving.lease).toBeUndefined();
      const read = await admit(created.access_key, { usage: 'read', defer_quota: true, lease_units: 10 });
      expect(read.lease).toBeUndefined();
      const internal = await callUnary(client, client.admitRequest, {
        access_key: '',
        account_id: created.account!.account_id,
        usage: 'render',
        features: [],
        signed_query: '',
        body: Buffer.alloc(0),
        ...cacheableRender(10),
      });
      expect(internal.lease).toBeUndefined();
      expect(internal.rate_limit?.remaining).toBe(36);
    });

    it('should grant no lease to a signed request, nor to an account that requires signatures', async () => {
      await inOneWindow();
      const query = 'url=https%3A%2F%2Fexample.com%2F';
      const open = await callUnary(client, client.createAccount, { name: 'LS', plan: 'basic' });
      const signedAnyway = await admit(open.access_key, { ...cacheableRender(10), signature: 'ab12', signed_query: `${query}&signature=ab12` });
      expect(signedAnyway.lease).toBeUndefined();

      const strict = await callUnary(client, client.createAccount, { name: 'LR', plan: 'basic' });
      await callUnary(client, client.setSignatureRequirement, { account_id: strict.account!.account_id, required: true });
      const signature = createHmac('sha256', strict.secret_key).update(query).digest('hex');
      const signed = await admit(strict.access_key, { ...cacheableRender(10), signature, signed_query: `${query}&signature=${signature}` });
      expect(signed.account?.signature_required).toBe(true);
      expect(signed.lease).toBeUndefined();
      expect(signed.rate_limit?.remaining).toBe(39);
    });
  });

  describe('When a lease is given back with ReturnRateLease', () => {
    it('should give back exactly its unused units, once', async () => {
      await inOneWindow();
      const created = await callUnary(client, client.createAccount, { name: 'LB', plan: 'basic' });
      const accountId = created.account!.account_id;
      const { lease, rate_limit } = await admit(created.access_key, cacheableRender(100));
      expect(rate_limit?.remaining).toBe(30);
      await returnLease(accountId, lease!.lease_id, 4);
      expect((await usageOf(accountId)).rate_limit?.remaining).toBe(34);
      await returnLease(accountId, lease!.lease_id, 4);
      expect((await usageOf(accountId)).rate_limit?.remaining).toBe(34);
      expect((await admit(created.access_key, { defer_quota: true })).rate_limit?.remaining).toBe(33);
    });

    it('should give back no more than the lease granted, and nothing for a lease nobody was granted', async () => {
      await inOneWindow();
      const created = await callUnary(client, client.createAccount, { name: 'LM', plan: 'basic' });
      const accountId = created.account!.account_id;
      const { lease } = await admit(created.access_key, cacheableRender(100));
      await returnLease(accountId, 'lease-that-never-was', 20);
      expect((await usageOf(accountId)).rate_limit?.remaining).toBe(30);
      await returnLease(accountId, lease!.lease_id, 1_000);
      expect((await usageOf(accountId)).rate_limit?.remaining).toBe(39);
    });

    it('should refuse a request without account or lease, or with negative units, naming the field', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'LV', plan: 'basic' });
      const accountId = created.account!.account_id;
      expect(await errorOf(returnLease('', 'lease-1', 1))).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'account_id' }] });
      expect(await errorOf(returnLease(accountId, '', 1))).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'lease_id' }] });
      expect(await errorOf(returnLease(accountId, 'lease-1', -1))).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'unused' }] });
      expect(await codeOf(returnLease('account-that-never-was', 'lease-1', 1))).toBe('not_found');
    });
  });

  describe('When requests and leases of one account come over two replicas at once', () => {
    it('should never admit more requests plus leased units than the rate limit, and a return admits exactly its units again', async () => {
      await inOneWindow(20_000);
      const second = await createApp(configOf(), logger);
      await second.start();
      const other = new AuthQuotaServiceClient(`127.0.0.1:${second.grpcPort()}`, credentials.createInsecure());
      try {
        // Basic plan: 40 requests a minute, shared by both replicas, whoever spends the units.
        const created = await callUnary(client, client.createAccount, { name: 'LX', plan: 'basic' });
        const accountId = created.account!.account_id;
        const request = { access_key: created.access_key, usage: 'render', features: [], signed_query: '', body: Buffer.alloc(0), defer_quota: true, lease_units: 10 };
        const answers = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            callUnary(i % 2 ? other : client, i % 2 ? other.admitRequest : client.admitRequest, request).then(
              (admitted) => ({ admitted }),
              (err: unknown) => ({ refused: isAppError(err) ? err.code : String(err) }),
            ),
          ),
        );
        const admitted = answers.flatMap((a) => ('admitted' in a ? [a.admitted] : []));
        const leased = admitted.reduce((sum, a) => sum + (a.lease?.units ?? 0), 0);
        expect(answers.filter((a) => 'refused' in a && a.refused !== 'rate_limited')).toEqual([]);
        expect(admitted.length + leased).toBe(40);
        expect(leased).toBeGreaterThan(0);

        // The units of one lease, given back unspent, admit exactly that many requests more.
        const { lease } = admitted.find((a) => a.lease)!;
        await callUnary(other, other.returnRateLease, { account_id: accountId, lease_id: lease!.lease_id, unused: lease!.units });
        const more = await Promise.all(Array.from({ length: lease!.units + 2 }, () => codeOf(admit(created.access_key, { defer_quota: true }))));
        expect(more.filter((c) => c === 'no error')).toHaveLength(lease!.units);
        expect(more.filter((c) => c === 'rate_limited')).toHaveLength(2);
      } finally {
        other.close();
        await second.stop();
      }
    });
  });

  describe('When auth-quota restarts', () => {
    it('should keep accounts, rotated keys and the month\'s committed usage', async () => {
      const created = await callUnary(client, client.createAccount, { name: 'S', plan: 'free' });
      const accountId = created.account!.account_id;
      const rotated = await callUnary(client, client.rotateKeys, { account_id: accountId });
      const first = await admit(rotated.access_key);
      await renderFinished(accountId, first.reservation_id!, 'succeeded');
      await until(async () => (await usageOf(accountId)).used === 1, 10_000, 'the commit');

      client.close();
      await app.stop();
      app = await createApp(configOf(), logger);
      await app.start();
      client = new AuthQuotaServiceClient(`127.0.0.1:${app.grpcPort()}`, credentials.createInsecure());

      expect(await codeOf(admit(created.access_key))).toBe('access_key_invalid');
      const usage = await callUnary(client, client.getUsage, { account_id: accountId });
      expect(usage).toMatchObject({ quota: 2, used: 1, remaining: 1 });
      await admit(rotated.access_key);
      expect(await codeOf(admit(rotated.access_key))).toBe('quota_exceeded');
    });
  });

  describe('When the plan name is unknown', () => {
    it('should fail with invalid_parameter', async () => {
      expect(await codeOf(callUnary(client, client.createAccount, { name: 'X', plan: 'gold' }))).toBe('invalid_parameter');
    });
  });
});
