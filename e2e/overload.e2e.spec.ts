import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsAdmin, holdRoute, startFixtureServer, startTestStack, until, type FixtureServer, type TestStack } from '@app/testkit';

// One renderer with two slots: two held renders, of two accounts (one account may not take every slot), take every slot.
let stack: TestStack;
let fixture: FixtureServer;
const hold = holdRoute();

beforeAll(async () => {
  fixture = await startFixtureServer({ '/hold': hold.handler });
  stack = await startTestStack({ env: { ALLOW_PRIVATE_TARGETS: '1', RENDERER_CONCURRENCY: '2' } });
});

afterAll(async () => {
  hold.release();
  await stack?.stop();
  await fixture?.close();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const used = async () => (await stack.call('GET', '/v1/usage', { headers: key() })).json<{ hits: { used: number } }>().hits.used;
const timed = async <T>(fn: () => Promise<T>) => {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
};

describe('Load shedding', () => {
  describe('When every renderer slot is held', () => {
    it('should answer 503 renderer_unavailable with Retry-After within 5 s, and never render nor charge the shed job', async () => {
      hold.reset();
      const usedBefore = await used();
      const admin = accountsAdmin(stack.authQuotaAddress);
      // Each account is at its limit (2 slots less the one kept for others): the third asks for the shed render.
      const [second, third] = await Promise.all([admin.create('scale'), admin.create('scale')]).finally(() => admin.close());
      const held = [stack.demo.accessKey, second.accessKey].map((accessKey, i) =>
        stack.call('POST', '/v1/screenshot', { headers: { 'x-access-key': accessKey }, json: { url: `${fixture.origin}/hold?i=${i}`, format: 'png' } }),
      );
      await until(() => hold.waiting === 2, 20_000, 'both slots held');

      const { value: res, ms } = await timed(() =>
        stack.call('POST', '/v1/screenshot', { headers: { 'x-access-key': third.accessKey }, json: { url: `${fixture.origin}/shed-while-busy` } }),
      );
      expect(res.status, res.body.toString()).toBe(503);
      expect(ms).toBeLessThan(5_000);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.json()).toMatchObject({ statusCode: 503, error: 'Service Unavailable', code: 'renderer_unavailable' });
      expect(res.headers['x-service-request-id']).toMatch(/^[0-9a-f]{32}$/);

      hold.release();
      for (const r of await Promise.all(held)) expect(r.status).toBe(200);
      // The freed slots pull the shed job from the queue: the edge says it was shed, so it is dropped.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(fixture.hits('/shed-while-busy')).toBe(0);
      // The demo account paid for its held render, and nothing for the shed one.
      expect(await used()).toBe(usedBefore + 1);
      // And the renderer serves normally again.
      const after = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { html: '<p>after</p>' } });
      expect(after.status).toBe(200);
    });
  });

  describe('When no renderer is alive', () => {
    it('should answer 503 renderer_unavailable within 5 s, and not render the job when a renderer comes back', async () => {
      const renderer = stack.processes.find((p) => p.name === 'renderer-1')!;
      await renderer.kill({ restart: false });
      const usedBefore = await used();
      const { value: res, ms } = await timed(() =>
        stack.call('POST', '/v1/screenshot', { headers: key(), json: { url: `${fixture.origin}/shed-while-dead` } }),
      );
      expect(res.status, res.body.toString()).toBe(503);
      expect(ms).toBeLessThan(5_000);
      expect(res.json()).toMatchObject({ code: 'renderer_unavailable' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);

      await stack.relaunch('renderer-1');
      const after = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { html: '<p>back</p>' } });
      expect(after.status).toBe(200);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(fixture.hits('/shed-while-dead')).toBe(0);
      expect(await used()).toBe(usedBefore + 1);
    });
  });

  describe('When auth-quota is down', () => {
    it('should answer 503 service_unavailable with Retry-After at once', async () => {
      const authQuota = stack.processes.find((p) => p.name === 'auth-quota')!;
      await authQuota.kill({ restart: false });
      try {
        const { value: res, ms } = await timed(() => stack.call('POST', '/v1/screenshot', { headers: key(), json: { html: '<p>x</p>' } }));
        expect(res.status, res.body.toString()).toBe(503);
        expect(ms).toBeLessThan(5_000);
        expect(res.json()).toMatchObject({ statusCode: 503, code: 'service_unavailable' });
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      } finally {
        await stack.relaunch('auth-quota');
      }
      await until(async () => (await stack.call('GET', '/v1/usage', { headers: key() })).status === 200, 10_000, 'auth-quota back');
    });
  });
});
