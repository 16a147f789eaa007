import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentials } from '@grpc/grpc-js';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { AccountConsoleServiceClient } from '@app/proto/authquota/console';
import { callUnary } from '@app/rpc';
import { createLogger } from '@app/logging';
import { isAppError } from '@app/errors';
import { SUBJECTS, connectNats, jetstream, type NatsConnection } from '@app/messaging';
import { RenderFinished } from '@app/proto/render';
import { startNatsServer, type RunningNats } from '@app/stack';
import { until } from '@app/testkit';
import { createApp, type AuthQuotaApp } from '../../app.js';
import { parseConfig } from '../../config.js';

// The dashboard's service: the generated client against the real server on port 0, SQLite event store.
let app: AuthQuotaApp;
let api: AuthQuotaServiceClient;
let console_: AccountConsoleServiceClient;
let dataDir: string;
let nats: RunningNats;
let nc: NatsConnection;

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return isAppError(err) ? err.code : `not an AppError: ${String(err)}`;
  }
  return 'no error';
};

const open = async (plan: string) => {
  const created = await callUnary(api, api.createAccount, { name: 'Owner', plan });
  return { id: created.account!.account_id, accessKey: created.access_key, secretKey: created.secret_key };
};
const signIn = (access_key: string, secret_key: string) => callUnary(console_, console_.signIn, { access_key, secret_key });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'auth-quota-console-'));
  nats = await startNatsServer({ storeDir: join(dataDir, 'nats') });
  nc = await connectNats({ servers: nats.url, name: 'console-test' });
  const config = parseConfig({ DATA_DIR: dataDir, NATS_URL: nats.url, AUTH_QUOTA_GRPC_ADDR: '127.0.0.1:0', AUTH_QUOTA_HEALTH_PORT: '0', PLAN_FREE_RATE_LIMIT: '3' });
  app = await createApp(config, createLogger('auth-quota-test', { level: 'silent' }));
  await app.start();
  api = new AuthQuotaServiceClient(`127.0.0.1:${app.grpcPort()}`, credentials.createInsecure());
  console_ = new AccountConsoleServiceClient(`127.0.0.1:${app.grpcPort()}`, credentials.createInsecure());
});

afterAll(async () => {
  api?.close();
  console_?.close();
  await app?.stop();
  await nc?.close();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('AccountConsoleService over gRPC', () => {
  describe('When the owner signs in with both keys', () => {
    it('should answer the account with its limits and key generation', async () => {
      const a = await open('scale');
      const { account } = await signIn(a.accessKey, a.secretKey);
      expect(account).toMatchObject({ account_id: a.id, plan: 'scale', rate_limit_per_minute: 150, monthly_quota: 50_000 });
      expect(account!.key_generation).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(account!.key_generation).not.toContain(a.accessKey);
    });
  });

  describe('When a key is wrong', () => {
    it("should be keys_invalid and spend nothing of the account's rate limit (the edge throttles failed sign-ins)", async () => {
      const a = await open('free');
      expect(await codeOf(signIn('ak_unknown', a.secretKey))).toBe('keys_invalid');
      expect(await codeOf(signIn(a.accessKey, ''))).toBe('keys_invalid');
      for (let i = 0; i < 10; i++) expect(await codeOf(signIn(a.accessKey, `sk_wrong_${i}`))).toBe('keys_invalid');
      expect((await callUnary(api, api.getUsage, { account_id: a.id })).rate_limit!.remaining).toBe(3);
      expect((await signIn(a.accessKey, a.secretKey)).account!.account_id).toBe(a.id);
      const admitted = await callUnary(api, api.admitRequests, {
        requests: [{ access_key: a.accessKey, usage: 'read', features: [], signed_query: '', body: Buffer.alloc(0) }],
      });
      expect(admitted.outcomes[0]!.result?.$case).toBe('admitted');
    });
  });

  describe('When the keys are rotated', () => {
    it('should give new keys, a new generation, and refuse the old keys at once', async () => {
      const a = await open('scale');
      const before = (await signIn(a.accessKey, a.secretKey)).account!.key_generation;
      const rotated = await callUnary(console_, console_.rotateConsoleKeys, { account_id: a.id });
      expect(rotated.account!.key_generation).not.toBe(before);
      expect((await callUnary(console_, console_.getConsoleAccount, { account_id: a.id })).account!.key_generation).toBe(rotated.account!.key_generation);
      expect(await codeOf(signIn(a.accessKey, a.secretKey))).toBe('keys_invalid');
      expect(await codeOf(callUnary(api, api.authenticate, { access_key: a.accessKey }))).toBe('access_key_invalid');
      expect((await signIn(rotated.access_key, rotated.secret_key)).account!.account_id).toBe(a.id);
      expect((await callUnary(console_, console_.revealSecretKey, { account_id: a.id })).secret_key).toBe(rotated.secret_key);
    });
  });

  describe('When a payload is signed', () => {
    it('should be the hex HMAC-SHA256 with the secret key', async () => {
      const a = await open('basic');
      const { signature } = await callUnary(console_, console_.signPayload, { account_id: a.id, payload: Buffer.from('url=https%3A%2F%2Fexample.com') });
      expect(signature).toBe(createHmac('sha256', a.secretKey).update('url=https%3A%2F%2Fexample.com').digest('hex'));
    });
  });

  describe('When renders were committed this month', () => {
    it('should count them on today, every earlier day of the month at 0', async () => {
      const a = await open('basic');
      for (let i = 0; i < 2; i++) {
        const admitted = await callUnary(api, api.admitRequest, { access_key: a.accessKey, usage: 'render', features: [], signed_query: '', body: Buffer.alloc(0) });
        // A render's reservation settles from its outcome on the bus.
        const event = RenderFinished.fromPartial({
          job_id: `job-${admitted.reservation_id}`,
          account_id: a.id,
          status: 'succeeded',
          origin: 'api',
          reservation_id: admitted.reservation_id!,
          result: { object_name: 'x', content_type: 'image/png', extension: 'png', size: 1, headers: {}, expires_unix_ms: 0 },
        });
        await jetstream(nc).publish(SUBJECTS.renderEvent('async', 'finished', event.job_id), RenderFinished.encode(event).finish());
      }
      await until(async () => (await callUnary(api, api.getUsage, { account_id: a.id })).used === 2, 10_000, 'two committed renders');
      const daily = await callUnary(console_, console_.getDailyUsage, { account_id: a.id });
      const today = new Date().toISOString().slice(0, 10);
      expect(daily.month).toBe(today.slice(0, 7));
      expect(daily.days).toHaveLength(new Date().getUTCDate());
      expect(daily.days.at(-1)).toEqual({ day: today, used: 2 });
      expect(daily.days.reduce((s, d) => s + d.used, 0)).toBe(2);
    });
  });
});
