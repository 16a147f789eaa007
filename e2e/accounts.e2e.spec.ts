import { createHmac } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@app/stack';
import { accountsAdmin, startTestStack, until, type TestStack } from '@app/testkit';

// Two edge replicas on one auth-quota: limits, quota and rotation must hold across both.
let stack: TestStack;
let admin: ReturnType<typeof accountsAdmin>;

beforeAll(async () => {
  stack = await startTestStack({
    edges: 2,
    // Free accounts may have 2 renders in flight by default: the quota race below needs more.
    env: { PLAN_FREE_QUOTA: '3', PLAN_FREE_RATE_LIMIT: '1000', PLAN_FREE_RENDERS_IN_FLIGHT: '10', PLAN_BASIC_RATE_LIMIT: '5', PLAN_GROWTH_RATE_LIMIT: '1000' },
  });
  admin = accountsAdmin(stack.authQuotaAddress);
});

afterAll(async () => {
  admin?.close();
  await stack?.stop();
});

const html = '<html><body><p>quota</p></body></html>';
const hmac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('hex');

describe('Quota', () => {
  describe('When 3N renders race for a quota of N over two edges', () => {
    it('should let exactly N succeed and answer 423 to the rest', async () => {
      const account = await admin.create('free');
      const results = await Promise.all(
        Array.from({ length: 9 }, (_, i) =>
          stack.call('POST', '/v1/screenshot', { edge: i % 2, headers: { 'x-access-key': account.accessKey }, json: { html } }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 200, 423, 423, 423, 423, 423, 423]);
      const refused = results.find((r) => r.status === 423)!;
      expect(refused.json()).toEqual({
        statusCode: 423,
        error: 'Locked',
        message: 'The monthly render quota of the account is used up.',
        code: 'quota_exceeded',
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // Reservations are committed once each response is sent.
      await until(async () => (await admin.usage(account.accountId)).used === 3, 5_000, 'three committed renders');
      const usage = await stack.call('GET', '/v1/usage', { headers: { 'x-access-key': account.accessKey } });
      expect(usage.json()).toMatchObject({ hits: { quota: 3, used: 3, remaining: 0 } });
    });
  });

  describe('When a render fails', () => {
    it('should cost nothing', async () => {
      const account = await admin.create('free');
      const failed = await stack.call('POST', '/v1/screenshot', {
        headers: { 'x-access-key': account.accessKey },
        json: { url: 'http://does-not-exist.invalid/' },
      });
      expect(failed.status).toBeGreaterThanOrEqual(400);
      // The reservation is released from the request's outcome, on the render-events stream, just after the answer.
      const usage = () => stack.call('GET', '/v1/usage', { headers: { 'x-access-key': account.accessKey } });
      await until(async () => (await usage()).json().hits.remaining === 3, 5_000, 'the reservation released');
      expect((await usage()).json()).toMatchObject({ hits: { quota: 3, used: 0, remaining: 3 } });
    });
  });
});

describe('Rate limit', () => {
  describe('When 3L requests race for a limit of L per minute over two edges', () => {
    it('should let exactly L pass and answer 429 with Retry-After to the rest', async () => {
      const account = await admin.create('basic');
      // Stay inside one clock minute (the window is the minute).
      const second = new Date().getUTCSeconds();
      if (second > 45) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
      const results = await Promise.all(
        Array.from({ length: 15 }, (_, i) =>
          stack.call('GET', '/v1/usage', { edge: i % 2, headers: { 'x-access-key': account.accessKey } }),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(5);
      const limited = results.filter((r) => r.status === 429);
      expect(limited).toHaveLength(10);
      for (const r of limited) {
        expect(r.json()).toEqual({
          statusCode: 429,
          error: 'Too Many Requests',
          message: 'Too many requests this minute; retry after the Retry-After delay.',
          code: 'rate_limited',
        });
        expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(r.headers['x-ratelimit-limit']).toBe('5');
        expect(r.headers['x-ratelimit-remaining']).toBe('0');
      }
    });
  });

  describe('When requests come with a wrong key', () => {
    it('should touch no account counters', async () => {
      const account = await admin.create('basic');
      const before = await admin.usage(account.accountId);
      for (let i = 0; i < 10; i++) {
        const r = await stack.call('GET', '/v1/usage', { headers: { 'x-access-key': `${account.accessKey}x` } });
        expect(r.status).toBe(401);
        expect(r.headers['x-ratelimit-limit']).toBeUndefined();
      }
      expect((await admin.usage(account.accountId)).rate_limit).toEqual(before.rate_limit);
    });
  });
});

describe('Key rotation', () => {
  describe('When the keys are rotated', () => {
    it('should refuse the old key on every edge at once and accept the new one', async () => {
      const account = await admin.create('growth');
      expect((await stack.call('GET', '/v1/usage', { headers: { 'x-access-key': account.accessKey } })).status).toBe(200);
      const rotated = await admin.rotate(account.accountId);
      const old = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          stack.call('GET', '/v1/usage', { edge: i % 2, headers: { 'x-access-key': account.accessKey } }),
        ),
      );
      expect(old.map((r) => r.status)).toEqual(Array(100).fill(401));
      for (const edge of [0, 1]) {
        expect((await stack.call('GET', '/v1/usage', { edge, headers: { 'x-access-key': rotated.accessKey } })).status).toBe(200);
      }
    });
  });
});

describe('Signed requests', () => {
  let account: Awaited<ReturnType<typeof admin.create>>;
  beforeAll(async () => {
    account = await admin.create('scale');
    await admin.requireSignatures(account.accountId);
  });

  describe('When a render request is unsigned', () => {
    it('should answer 401 signature_required', async () => {
      const res = await stack.call('GET', `/v1/screenshot?access_key=${account.accessKey}&html=${encodeURIComponent(html)}`);
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'This account requires signed requests: add the signature parameter.',
        code: 'signature_required',
      });
      const post = await stack.call('POST', '/v1/pdf', { headers: { 'x-access-key': account.accessKey }, json: { html } });
      expect(post.status).toBe(401);
      expect(post.json()).toMatchObject({ code: 'signature_required' });
    });
  });

  describe('When usage, devices, tasks and render status are asked for unsigned, as the official clients do', () => {
    it('should authenticate them by the key alone', async () => {
      const key = { 'x-access-key': account.accessKey };
      expect((await stack.call('GET', `/v1/usage?access_key=${account.accessKey}`)).status).toBe(200);
      expect((await stack.call('GET', '/v1/devices', { headers: key })).status).toBe(200);
      const created = await stack.call('POST', '/v1/tasks', {
        headers: key,
        json: { name: 'unsigned', api: 'screenshot', query: 'html=%3Cp%3Eunsigned%3C%2Fp%3E', frequency: 'every_day', enabled: false },
      });
      expect(created.status).toBe(201);
      const id = (created.json() as { id: number }).id;
      expect((await stack.call('GET', '/v1/tasks', { headers: key })).status).toBe(200);
      expect((await stack.call('GET', `/v1/tasks/${id}`, { headers: key })).status).toBe(200);
      expect((await stack.call('PATCH', `/v1/tasks/${id}`, { headers: key, json: { enabled: true } })).status).toBe(200);
      expect((await stack.call('GET', `/v1/tasks/${id}/runs`, { headers: key })).status).toBe(200);
      expect((await stack.call('DELETE', `/v1/tasks/${id}?access_key=${account.accessKey}`)).status).toBe(204);
      // Past authentication: the render is not found (404), not a 401.
      const status = await stack.call('GET', '/v1/renders/00000000-0000-4000-8000-000000000000', { headers: key });
      expect(status.status).toBe(404);
      expect(status.json()).toMatchObject({ code: 'render_not_found' });
      // A bad key is still refused there.
      expect((await stack.call('GET', '/v1/usage', { headers: { 'x-access-key': `${account.accessKey}x` } })).status).toBe(401);
    });
  });

  describe('When the query is signed with the secret key', () => {
    it('should render, and fail with 403 once one byte of the query changes', async () => {
      const query = `access_key=${account.accessKey}&html=${encodeURIComponent(html)}`;
      const signature = hmac(account.secretKey, query);
      const ok = await stack.call('GET', `/v1/screenshot?${query}&signature=${signature}`);
      expect(ok.status).toBe(200);
      const tampered = await stack.call('GET', `/v1/screenshot?${query.replace('quota', 'quotb')}&signature=${signature}`);
      expect(tampered.status).toBe(403);
      expect(tampered.json()).toEqual({
        statusCode: 403,
        error: 'Forbidden',
        message: 'The request signature does not match.',
        code: 'signature_invalid',
      });
    });
  });

  describe('When a POST body is signed in X-Signature', () => {
    it('should render, and fail with 403 once one byte of the body changes', async () => {
      const body = JSON.stringify({ access_key: account.accessKey, html });
      const signature = hmac(account.secretKey, body);
      const headers = { 'content-type': 'application/json', 'x-signature': signature };
      const ok = await stack.call('POST', '/v1/screenshot', { headers, body });
      expect(ok.status).toBe(200);
      const tampered = await stack.call('POST', '/v1/screenshot', { headers, body: body.replace('quota', 'quotb') });
      expect(tampered.status).toBe(403);
      expect(tampered.json()).toMatchObject({ code: 'signature_invalid' });
    });

    it('should check a large body (admitted on its own, not batched) the same way', async () => {
      const large = `${html}<!--${'x'.repeat(64 * 1024)}-->`;
      const body = JSON.stringify({ access_key: account.accessKey, html: large });
      const headers = { 'content-type': 'application/json', 'x-signature': hmac(account.secretKey, body) };
      expect((await stack.call('POST', '/v1/screenshot', { headers, body })).status).toBe(200);
      const tampered = await stack.call('POST', '/v1/screenshot', { headers, body: body.replace('xxxx', 'xxxy') });
      expect(tampered.status).toBe(403);
      expect(tampered.json()).toMatchObject({ code: 'signature_invalid' });
    });
  });
});

describe('Billing and plans', () => {
  describe('When the account has an unpaid invoice', () => {
    it('should answer 402 payment_required until it is paid', async () => {
      const account = await admin.create('growth');
      await admin.setBilling(account.accountId, 'unpaid');
      const res = await stack.call('POST', '/v1/screenshot', { headers: { 'x-access-key': account.accessKey }, json: { html } });
      expect(res.status).toBe(402);
      expect(res.json()).toEqual({
        statusCode: 402,
        error: 'Payment Required',
        message: 'The account has an unpaid invoice; pay it to continue rendering.',
        code: 'payment_required',
      });
      await admin.setBilling(account.accountId, 'paid');
      expect((await stack.call('POST', '/v1/screenshot', { headers: { 'x-access-key': account.accessKey }, json: { html } })).status).toBe(200);
    });
  });

  describe('When a Scale-only feature is asked for on another plan', () => {
    it('should answer 402 plan_upgrade_required', async () => {
      const account = await admin.create('growth');
      const res = await stack.call('POST', '/v1/screenshot', {
        headers: { 'x-access-key': account.accessKey },
        json: { html, gpu_rendering: true },
      });
      expect(res.status).toBe(402);
      expect(res.json()).toEqual({
        statusCode: 402,
        error: 'Payment Required',
        message: 'gpu_rendering is available on the Scale plan only.',
        code: 'plan_upgrade_required',
      });
    });
  });
});

describe('Admin command line', () => {
  describe('When an account is created and its keys rotated with npm run admin', () => {
    it('should print the keys once and make the new key the only valid one', async () => {
      const run = promisify(execFile);
      const cli = join(REPO_ROOT, 'services/auth-quota/dist/entrypoints/cli/admin.js');
      const env = { ...process.env, AUTH_QUOTA_ADDR: stack.authQuotaAddress };
      const created = JSON.parse((await run(process.execPath, [cli, 'create-account', '--plan', 'basic', '--name', 'cli'], { env })).stdout);
      expect(created.access_key).toMatch(/^ak_/);
      const rotated = JSON.parse((await run(process.execPath, [cli, 'rotate-keys', '--account', created.account.account_id], { env })).stdout);
      expect((await stack.call('GET', '/v1/usage', { headers: { 'x-access-key': created.access_key } })).status).toBe(401);
      expect((await stack.call('GET', '/v1/usage', { headers: { 'x-access-key': rotated.access_key } })).status).toBe(200);
      const bad = await run(process.execPath, [cli, 'change-plan', '--account', created.account.account_id, '--plan', 'gold'], { env }).catch((e) => e);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('invalid_parameter');
    });
  });
});
