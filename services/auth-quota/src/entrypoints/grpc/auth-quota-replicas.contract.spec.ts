import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { credentials } from '@grpc/grpc-js';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { callUnary } from '@app/rpc';
import { isAppError } from '@app/errors';
import { until } from '@app/testkit';
import { createApp } from '../../app.js';
import { client, configOf, logger, renderFinished, usageOf, codeOf, admit, cacheableRender, returnLease, errorOf, inOneWindow, restartAuthQuota, useAuthQuota } from '../../testing/auth-quota-contract.js';

// The generated gRPC client against the real server (testing/auth-quota-contract.ts): a second replica on
// the same bus and store, batched admissions, rate leases, a restart.
useAuthQuota();

describe('AuthQuotaService over gRPC: replicas, batches, rate leases and restarts', () => {
  describe('When a second replica runs on the same bus and store', () => {
    it('should share the quota exactly and refuse a key rotated through the other at once', async () => {
      const second = await createApp(configOf(), logger);
      await second.start();
      const other = new AuthQuotaServiceClient(`127.0.0.1:${second.grpcPort()}`, credentials.createInsecure());
      try {
        const created = await callUnary(client, client.createAccount, { name: 'two', plan: 'free' });
        const request = { access_key: created.access_key, usage: 'render', features: [], signed_query: '', body: Buffer.alloc(0) };
        // A replica learns of an account created on another from the bus, moments later (seen: the first
        // admissions on a just-started second replica refused access_key_invalid); then they share its quota.
        await until(async () => (await codeOf(callUnary(other, other.authenticate, { access_key: created.access_key }))) === 'no error', 10_000, 'the other replica to know the account', 50);
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

      await restartAuthQuota();

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
