import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureServer, TestAccount, TestStack } from '@app/testkit';
import { accountsAdmin, httpsRequest, startFixtureServer, startTestStack, until } from '@app/testkit';

/**
 * A reservation lives as long as the render it stands for, and only a render is one: a synchronous
 * render whose client gave up is ended (not charged) within seconds, an account alone uses every render
 * slot up to its plan, and creating a task never counts against renders in flight. One renderer with
 * the default 4 slots; the basic plan allows 3 renders in flight and the scale plan 4 here.
 */
let stack: TestStack;
let fixture: FixtureServer;
let admin: ReturnType<typeof accountsAdmin>;

beforeAll(async () => {
  fixture = await startFixtureServer({});
  stack = await startTestStack({
    renderers: 1,
    env: {
      ALLOW_PRIVATE_TARGETS: '1',
      RENDERER_CONCURRENCY: '4',
      PLAN_BASIC_RENDERS_IN_FLIGHT: '3',
      PLAN_SCALE_RENDERS_IN_FLIGHT: '4',
      // Waiting renders are never shed here: what is measured is who is admitted.
      EDGE_RENDER_START_TIMEOUT_MS: '30000',
    },
  });
  admin = accountsAdmin(stack.authQuotaAddress);
});

afterAll(async () => {
  admin?.close();
  await stack?.stop();
  await fixture?.close();
});

const slowScreenshot = (delaySeconds: number) => ({ url: `${fixture.origin}/`, delay: delaySeconds, format: 'png', viewport_width: 320, viewport_height: 240 });
const keyed = (account: TestAccount) => ({ 'x-access-key': account.accessKey });
const usageOf = async (account: TestAccount) =>
  (await stack.call('GET', '/v1/usage', { headers: keyed(account) })).json<{ hits: { used: number }; renders: { limit: number; in_flight: number } }>();

describe('Reservations and renders in flight', () => {
  describe('When three synchronous renders are given up by their clients after 1 s', () => {
    it('should end their reservations within seconds, charge nothing and admit the next render', async () => {
      const account = await admin.create('basic', 'gives-up');
      const given = await Promise.allSettled(
        [1, 2, 3].map(() =>
          httpsRequest(`https://127.0.0.1:${stack.port}/v1/screenshot`, {
            method: 'POST',
            headers: { ...keyed(account), 'content-type': 'application/json' },
            body: JSON.stringify(slowScreenshot(4)),
            ca: stack.certPem,
            servername: 'localhost',
            timeoutMs: 1_000,
          }),
        ),
      );
      expect(given.map((g) => g.status)).toEqual(['rejected', 'rejected', 'rejected']);
      const gaveUpAt = Date.now();
      await until(async () => (await usageOf(account)).renders.in_flight === 0, 10_000, 'the given-up renders to end', 100);
      const endedWithinMs = Date.now() - gaveUpAt;
      expect(endedWithinMs).toBeLessThan(10_000);
      const next = await stack.call('POST', '/v1/screenshot', { headers: keyed(account), json: slowScreenshot(0) });
      expect(next.status, next.body.toString()).toBe(200);
      // The renders that ran on after their clients left are never charged: only the last one is.
      await new Promise((r) => setTimeout(r, 6_000));
      expect(await usageOf(account)).toMatchObject({ hits: { used: 1 }, renders: { in_flight: 0 } });
    }, 120_000);
  });

  describe('When an account alone sends as many renders at once as its plan allows', () => {
    it('should render every one, on every slot, refusing none', async () => {
      const account = await admin.create('scale', 'alone');
      const answers = await Promise.all([1, 2, 3, 4].map(() => stack.call('POST', '/v1/screenshot', { headers: keyed(account), json: slowScreenshot(2) })));
      expect(answers.map((a) => a.status), answers.map((a) => a.body.toString().slice(0, 200)).join('\n')).toEqual([200, 200, 200, 200]);
      expect(await usageOf(account)).toMatchObject({ hits: { used: 4 }, renders: { limit: 4, in_flight: 0 } });
    }, 120_000);
  });

  describe('When an account has its renders in flight full and creates a task', () => {
    it('should create it (201): a task is not a render', async () => {
      const account = await admin.create('scale', 'tasks-while-busy');
      const renders = [1, 2, 3, 4].map(() => stack.call('POST', '/v1/screenshot', { headers: keyed(account), json: slowScreenshot(4) }));
      try {
        await until(async () => (await usageOf(account)).renders.in_flight === 4, 20_000, 'four renders in flight', 100);
        const refused = await stack.call('POST', '/v1/screenshot', { headers: keyed(account), json: slowScreenshot(0) });
        expect(refused.status).toBe(429);
        const created = await stack.call('POST', '/v1/tasks', {
          headers: keyed(account),
          json: { name: 'while busy', api: 'screenshot', query: `url=${encodeURIComponent(`${fixture.origin}/`)}`, frequency: 'every_day' },
        });
        expect(created.status, created.body.toString()).toBe(201);
        expect((await usageOf(account)).renders.in_flight).toBe(4);
      } finally {
        await Promise.all(renders);
      }
    }, 120_000);
  });
});
