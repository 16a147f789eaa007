import { describe, expect, it } from 'vitest';
import { callUnary } from '@app/rpc';
import { announceReservationEnded } from '@app/admission-client';
import { jetstream } from '@app/messaging';
import { until } from '@app/testkit';
import { app, client, nc, renderFinished, usageOf, codeOf, admit, useAuthQuota } from '../../testing/auth-quota-contract.js';

// The generated gRPC client against the real server (testing/auth-quota-contract.ts): accounts, keys, plans,
// quota reservations and how they settle, renders in flight.
useAuthQuota();

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
});
