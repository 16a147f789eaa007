import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startNatsServer, type RunningNats } from '@app/stack';
import { startTestStack, until, type TestStack } from '@app/testkit';

// The stack on a NATS server of the test's own, which the test stops and starts again.
let stack: TestStack;
let nats: RunningNats | undefined;
let natsPort: number;
const natsDir = mkdtempSync(join(tmpdir(), 'nats-outage-'));

beforeAll(async () => {
  natsPort = await freePort();
  nats = await startNatsServer({ storeDir: natsDir, port: natsPort });
  stack = await startTestStack({ natsUrl: nats.url });
});

afterAll(async () => {
  await stack?.stop();
  await nats?.stop();
  rmSync(natsDir, { recursive: true, force: true });
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const statusOf = async (url: string) => {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(3_000) })).status;
  } catch {
    return 0;
  }
};
const readiness = async () => Object.fromEntries(await Promise.all(Object.entries(stack.opsUrls).map(async ([name, url]) => [name, await statusOf(`${url}/readyz`)])));

describe('Health and readiness', () => {
  describe('When every dependency is up', () => {
    it('should answer /healthz and /readyz 200 on every service, and on the public port', async () => {
      expect(Object.keys(stack.opsUrls).sort()).toEqual(['auth-quota', 'edge-http', 'renderer-1', 'scheduler', 'webhook-dispatcher']);
      for (const url of Object.values(stack.opsUrls)) {
        expect(await statusOf(`${url}/healthz`)).toBe(200);
        const ready = await fetch(`${url}/readyz`);
        expect(ready.status).toBe(200);
        expect(((await ready.json()) as { checks: Record<string, string> }).checks).toMatchObject({ nats: 'ok' });
      }
      const renderer = (await (await fetch(`${stack.opsUrls['renderer-1']}/readyz`)).json()) as { checks: Record<string, string> };
      expect(renderer.checks).toEqual({ nats: 'ok', browsers: 'ok' });
      const edge = (await (await fetch(`${stack.opsUrls['edge-http']}/readyz`)).json()) as { checks: Record<string, string> };
      expect(edge.checks).toEqual({ nats: 'ok', 'auth-quota': 'ok', scheduler: 'ok' });
      expect((await stack.call('GET', '/readyz')).status).toBe(200);
      expect((await stack.call('GET', '/healthz')).status).toBe(200);
    });
  });

  describe('When NATS stops and comes back', () => {
    it('should turn every /readyz 503 within 5 s, answer API calls 503 service_unavailable at once, and be ready again after', async () => {
      await nats!.stop();
      const stoppedAt = Date.now();
      await until(async () => Object.values(await readiness()).every((s) => s === 503), 5_000, 'every service not ready');
      expect(Date.now() - stoppedAt).toBeLessThan(5_000);
      // Still alive: nothing restarts them for a dependency's outage.
      for (const url of Object.values(stack.opsUrls)) expect(await statusOf(`${url}/healthz`)).toBe(200);
      expect((await stack.call('GET', '/readyz')).status).toBe(503);

      const started = Date.now();
      const res = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { html: '<p>x</p>' } });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(res.status).toBe(503);
      expect(res.json()).toMatchObject({ statusCode: 503, code: 'service_unavailable' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);

      nats = await startNatsServer({ storeDir: natsDir, port: natsPort });
      await until(async () => Object.values(await readiness()).every((s) => s === 200), 15_000, 'every service ready again');
      const after = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { html: '<p>back</p>' } });
      expect(after.status, after.body.toString()).toBe(200);
    });
  });
});
