import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, type RunningNats } from '@app/stack';
import { accountsAdmin, startFixtureServer, startTestStack, until, type FixtureServer, type TestAccount, type TestStack } from '@app/testkit';

// NATS hung, not dead: the server stops answering (SIGSTOP) while every connection to it stays open, so no
// client sees a disconnect. The edge must still answer API requests 503 at once, from its own view of the
// bus, instead of waiting for a backing call (an admission, a publish) to reach its deadline.
let dir: string;
let nats: RunningNats;
let stack: TestStack;
let fixture: FixtureServer;
let admin: ReturnType<typeof accountsAdmin>;
let account: TestAccount;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bus-hung-'));
  nats = await startNatsServer({ storeDir: join(dir, 'nats') });
  fixture = await startFixtureServer({});
  stack = await startTestStack({ natsUrl: nats.url, env: { ALLOW_PRIVATE_TARGETS: '1' } });
  admin = accountsAdmin(stack.authQuotaAddress);
  account = await admin.create('scale');
});

afterAll(async () => {
  nats?.process.kill('SIGCONT');
  admin?.close();
  await stack?.stop();
  await nats?.stop();
  await fixture?.close();
  rmSync(dir, { recursive: true, force: true });
});

const keyed = { 'x-access-key': '' };
const edgeReadiness = async () =>
  ((await (await fetch(`${stack.opsUrls['edge-http']}/readyz`)).json()) as { checks?: Record<string, string> }).checks ?? {};

describe('The API while NATS hangs', () => {
  describe('When the NATS server stops answering with its connections open', () => {
    it("should answer every kind of request 503 service_unavailable from the edge's own view of the bus, and serve again once NATS answers", async () => {
      keyed['x-access-key'] = account.accessKey;
      const scrape = () => stack.call('POST', '/v1/scrape', { headers: keyed, json: { url: `${fixture.origin}/` } });
      expect((await scrape()).status).toBe(200);

      nats.process.kill('SIGSTOP');
      try {
        // The edge pings NATS: it sees the bus down although no connection dropped.
        await until(async () => (await edgeReadiness()).nats === 'NATS is not connected', 30_000, 'the edge to see NATS down', 250);
        const answers = await Promise.all([
          scrape(),
          stack.call('GET', `/v1/screenshot?url=${encodeURIComponent(`${fixture.origin}/`)}`, { headers: keyed }),
          stack.call('POST', '/v1/pdf', { headers: keyed, json: { url: `${fixture.origin}/`, async: true } }),
          stack.call('GET', '/v1/usage', { headers: keyed }),
          stack.call('GET', '/v1/devices', { headers: keyed }),
          stack.call('GET', '/v1/tasks', { headers: keyed }),
        ]);
        for (const answer of answers) {
          expect(answer.status, answer.body.toString()).toBe(503);
          // The edge's own refusal (a backing call that reached its deadline says "retry shortly").
          expect(answer.json()).toEqual({
            statusCode: 503,
            error: 'Service Unavailable',
            code: 'service_unavailable',
            message: 'A backing service is unavailable; retry after the Retry-After delay.',
          });
          expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
        }
      } finally {
        nats.process.kill('SIGCONT');
      }
      await until(async () => (await scrape()).status === 200, 60_000, 'renders again once NATS answers', 500);
    }, 180_000);

    it('should answer the requests already in flight (render waits, admissions) 503 about as soon as it sees NATS down', async () => {
      keyed['x-access-key'] = account.accessKey;
      const slow = { url: `${fixture.origin}/`, delay: 6, format: 'png', viewport_width: 320, viewport_height: 240 };
      const timed = (p: Promise<{ status: number }>) => p.then((res) => ({ status: res.status, at: Date.now() }));
      // Renders in flight, or undefined while the usage route itself is answered 503 (the bus just came back).
      const usage = async () => {
        const res = await stack.call('GET', '/v1/usage', { headers: keyed });
        return res.status === 200 ? res.json<{ renders: { in_flight: number } }>().renders.in_flight : undefined;
      };
      // Two renders waiting for their outcome when NATS stops answering.
      const waiting = [1, 2].map(() => timed(stack.call('POST', '/v1/screenshot', { headers: keyed, json: slow })));
      await until(async () => (await usage()) === 2, 30_000, 'two renders in flight', 100);
      nats.process.kill('SIGSTOP');
      let seenDownAt = 0;
      try {
        // Admissions sent after the hang, before the edge sees it: they wait on auth-quota, whose limits are on the bus.
        const admitting = [1, 2].map(() => timed(stack.call('POST', '/v1/screenshot', { headers: keyed, json: slow })));
        await until(async () => (await edgeReadiness()).nats === 'NATS is not connected', 30_000, 'the edge to see NATS down', 50);
        seenDownAt = Date.now();
        const answers = await Promise.all([...waiting, ...admitting]);
        for (const answer of answers) {
          expect(answer.status).toBe(503);
          // Abandoned when the bus was judged down, not at a backing call's deadline (8.5 to 10 s before).
          expect(answer.at - seenDownAt).toBeLessThan(2_500);
        }
      } finally {
        nats.process.kill('SIGCONT');
      }
      await until(async () => (await usage()) === 0, 60_000, 'the abandoned renders to end', 500);
    }, 180_000);
  });
});
