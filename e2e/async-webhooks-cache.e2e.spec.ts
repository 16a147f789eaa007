import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountsAdmin,
  holdRoute,
  startFixtureServer,
  startTestStack,
  startWebhookReceiver,
  until,
  verifyWebhook,
  type FixtureServer,
  type ReceiverAnswer,
  type TestStack,
  type WebhookReceiver,
} from '@app/testkit';

// Async renders, their signed webhooks and the render cache, through the whole stack over HTTPS with two
// edge replicas on one NATS (one stack for all, to keep the run short). Webhook receivers are plain HTTP
// on loopback (ALLOW_PRIVATE_TARGETS=1); the retry schedule and the sweep interval are shortened by env.
let stack: TestStack;
let fixture: FixtureServer;
let admin: ReturnType<typeof accountsAdmin>;
const receivers: WebhookReceiver[] = [];
const RETRY_MS = 1_000;

beforeAll(async () => {
  fixture = await startFixtureServer();
  stack = await startTestStack({
    edges: 2,
    env: {
      ALLOW_PRIVATE_TARGETS: '1',
      EDGE_SWEEP_INTERVAL_MS: '1000',
      WEBHOOK_RETRY_SCHEDULE: `${RETRY_MS}ms,${RETRY_MS}ms,${RETRY_MS}ms`,
      WEBHOOK_RETRY_JITTER_PERCENT: '0',
    },
  });
  admin = accountsAdmin(stack.authQuotaAddress);
});

afterAll(async () => {
  admin?.close();
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.stop();
  await fixture?.close();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const receiver = async (answer?: (n: number) => ReceiverAnswer) => {
  const r = await startWebhookReceiver({ secret: () => stack.demo.secretKey, answer });
  receivers.push(r);
  return r;
};
const usedQuota = async () => (await stack.call('GET', '/v1/usage', { headers: key() })).json<{ hits: { used: number } }>().hits.used;
const statusOf = (id: string, headers = key()) => stack.call('GET', `/v1/renders/${id}`, { headers });

interface Status {
  id: string;
  status: string;
  created: number;
  finished: number | null;
  file: string | null;
  expires: number | null;
  error: { code: string; message: string } | null;
  webhook?: { status: string; attempts: number };
}

describe('POST /v1/screenshot with async=true and a webhook_url', () => {
  describe('When the render succeeds and the receiver accepts', () => {
    let r: WebhookReceiver;
    let id: string;
    let usedBefore: number;
    beforeAll(async () => {
      r = await receiver();
      usedBefore = await usedQuota();
    });

    it('should answer 202 at once with the queued render', async () => {
      const res = await stack.call('POST', '/v1/screenshot', {
        headers: key(),
        json: { url: `${fixture.origin}/`, format: 'png', async: true, webhook_url: `${r.url}/hooks/render` },
      });
      expect(res.status, res.body.toString()).toBe(202);
      const body = res.json<{ id: string; status: string; created: number }>();
      expect(body).toEqual({ id: expect.any(String), status: 'queued', created: expect.any(Number) });
      expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(60);
      id = body.id;
    });

    it('should deliver one webhook that both verifiers accept, and a tampered body neither', async () => {
      await until(() => r.accepted().length === 1, 30_000, 'webhook delivery');
      const [d] = r.received;
      expect(d!.standardOk).toBe(true);
      expect(d!.plainOk).toBe(true);
      expect(d!.headers['webhook-id']).toBe(id);
      // No trace context leaves the service: the receiver is outside it.
      for (const header of ['traceparent', 'tracestate', 'baggage']) expect(d!.headers[header], header).toBeUndefined();
      const body = JSON.parse(d!.body);
      expect(body).toEqual({
        id,
        status: 'succeeded',
        file: expect.stringMatching(/^https:\/\/[^/]+\/v1\/files\/[A-Za-z0-9_-]{43}$/),
        expires: expect.any(Number),
        created: expect.any(Number),
        format: 'png',
        size: expect.any(Number),
      });
      expect(body.expires - body.created).toBeGreaterThan(24 * 3600 - 120);
      expect(body.expires - body.created).toBeLessThanOrEqual(24 * 3600 + 120);
      expect(verifyWebhook(stack.demo.secretKey, d!.body.replace(id, id.replace(/.$/, (c: string) => (c === '0' ? '1' : '0'))), d!.headers)).toEqual({
        standardOk: false,
        plainOk: false,
      });
    });

    it('should show the render as succeeded with its file, and the webhook as delivered', async () => {
      await until(async () => (await statusOf(id)).json<Status>().status === 'succeeded', 10_000, 'status succeeded');
      const status = (await statusOf(id)).json<Status>();
      expect(status).toMatchObject({ id, status: 'succeeded', error: null, webhook: { status: 'delivered', attempts: 1 } });
      expect(status.finished).toBeGreaterThanOrEqual(status.created);
      expect(status.file).toMatch(/\/v1\/files\/[A-Za-z0-9_-]{43}$/);
      const webhookBody = JSON.parse(r.received[0]!.body);
      expect(status.file!.split('/').pop()).toBe(webhookBody.file.split('/').pop());
    });

    it('should serve the file without the key, with the size the webhook announced', async () => {
      const status = (await statusOf(id)).json<Status>();
      const file = await stack.call('GET', new URL(status.file!).pathname);
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toBe('image/png');
      expect(file.body.subarray(1, 4).toString()).toBe('PNG');
      expect(file.body.length).toBe(JSON.parse(r.received[0]!.body).size);
    });

    it('should have cost exactly one render of quota, once it finished', async () => {
      await until(async () => (await usedQuota()) === usedBefore + 1, 10_000, 'quota committed');
    });

    it('should hide the render from another account', async () => {
      const other = await admin.create('scale');
      const res = await statusOf(id, { 'x-access-key': other.accessKey });
      expect(res.status).toBe(404);
      expect(res.json()).toMatchObject({ statusCode: 404, code: 'render_not_found' });
    });
  });

  describe('When the receiver answers 500 three times and then 200', () => {
    it('should deliver exactly once after the retries, with the same webhook-id every time', async () => {
      const r = await receiver((n) => ({ status: n <= 3 ? 500 : 200 }));
      const res = await stack.call('POST', '/v1/screenshot', {
        headers: key(),
        json: { html: '<p>retry</p>', async: true, webhook_url: `${r.url}/flaky` },
      });
      expect(res.status).toBe(202);
      const { id } = res.json<{ id: string }>();
      await until(() => r.accepted().length === 1, 30_000, 'delivery after retries');
      await new Promise((done) => setTimeout(done, RETRY_MS * 1.5));
      expect(r.received.map((x) => x.status)).toEqual([500, 500, 500, 200]);
      expect(new Set(r.received.map((x) => x.headers['webhook-id']))).toEqual(new Set([id]));
      expect(r.received.every((x) => x.standardOk && x.plainOk)).toBe(true);
      expect(new Set(r.received.map((x) => x.headers['webhook-timestamp'])).size).toBeGreaterThan(1);
      const status = (await statusOf(id)).json<Status>();
      expect(status.webhook).toMatchObject({ status: 'delivered', attempts: 4 });
    });
  });

  describe('When the dispatcher is killed in the middle of the schedule', () => {
    it('should deliver after it is started again (nothing lost)', async () => {
      let up = false;
      const r = await receiver(() => ({ status: up ? 200 : 503 }));
      const res = await stack.call('POST', '/v1/pdf', {
        headers: key(),
        json: { html: '<p>crash</p>', async: true, webhook_url: `${r.url}/crash` },
      });
      const { id } = res.json<{ id: string }>();
      await until(() => r.received.length >= 1, 30_000, 'first attempt');
      // Let the failed attempt be nak'ed (its next time now lives in JetStream), then kill -9.
      await new Promise((done) => setTimeout(done, 300));
      const dispatcher = stack.processes.find((p) => p.name === 'webhook-dispatcher' && p.process.exitCode === null && p.process.signalCode === null)!;
      await dispatcher.kill({ restart: false });
      up = true;
      await new Promise((done) => setTimeout(done, RETRY_MS * 2));
      expect(r.accepted()).toHaveLength(0);
      await stack.relaunch('webhook-dispatcher');
      await until(() => r.accepted().length === 1, 90_000, 'delivery after restart');
      expect(r.accepted()[0]!.headers['webhook-id']).toBe(id);
      expect(JSON.parse(r.accepted()[0]!.body)).toMatchObject({ id, status: 'succeeded', format: 'pdf' });
    });
  });

  describe('When the render fails', () => {
    it('should deliver a failed webhook with the error, and cost no quota', async () => {
      const r = await receiver();
      const usedBefore = await usedQuota();
      const res = await stack.call('POST', '/v1/screenshot', {
        headers: key(),
        json: { url: `${fixture.origin}/slow`, timeout: 1, async: true, webhook_url: `${r.url}/fail` },
      });
      const { id } = res.json<{ id: string }>();
      await until(() => r.accepted().length === 1, 30_000, 'failure webhook');
      expect(JSON.parse(r.received[0]!.body)).toMatchObject({ id, status: 'failed', file: null, error: { code: 'render_timeout' } });
      await until(async () => (await statusOf(id)).json<Status>().status === 'failed', 10_000, 'status failed');
      expect((await statusOf(id)).json<Status>().error).toMatchObject({ code: 'render_timeout' });
      expect(await usedQuota()).toBe(usedBefore);
    });
  });
});

describe('Async without a webhook, and refusals', () => {
  describe('When async=true comes without a webhook_url', () => {
    it('should be pollable until it succeeds', async () => {
      const res = await stack.call('GET', `/v1/scrape?${new URLSearchParams({ access_key: stack.demo.accessKey, url: `${fixture.origin}/`, async: 'true' })}`);
      expect(res.status).toBe(202);
      const { id } = res.json<{ id: string }>();
      await until(async () => (await statusOf(id)).json<Status>().status === 'succeeded', 30_000, 'status succeeded');
      const status = (await statusOf(id)).json<Status>();
      expect(status.webhook).toBeUndefined();
      const file = await stack.call('GET', new URL(status.file!).pathname);
      expect(file.body.toString()).toContain('Fixture page');
    });
  });

  describe('When webhook_url is given without async=true', () => {
    it('should answer 400 naming webhook_url', async () => {
      const res = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { html: '<p>x</p>', webhook_url: 'https://hooks.example.com/' } });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'webhook_url' }] });
    });
  });

  describe('When the render id or the file name is unknown', () => {
    it('should answer 404 render_not_found and file_not_found', async () => {
      expect((await statusOf('no-such-render')).json()).toMatchObject({ statusCode: 404, code: 'render_not_found' });
      const file = await stack.call('GET', `/v1/files/${'A'.repeat(43)}`);
      expect(file.status).toBe(404);
      expect(file.json()).toMatchObject({ statusCode: 404, code: 'file_not_found' });
    });
  });

  describe('When the status is asked without a key', () => {
    it('should answer 401', async () => {
      expect((await statusOf('x', {} as ReturnType<typeof key>)).status).toBe(401);
    });
  });
});

let pages = 0;
/** A fixture page of its own for each test, so its hits count only that test's renders. */
const newPage = () => {
  const path = `/cached-${++pages}`;
  fixture.route(path, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<html><body style="margin:0"><h1>page ${path} ${Math.random()}</h1></body></html>`);
  });
  return { path, url: `${fixture.origin}${path}` };
};

const shot = (accessKey: string, json: Record<string, unknown>, edge = 0) =>
  stack.call('POST', '/v1/screenshot', { edge, headers: { 'x-access-key': accessKey }, json });

describe('Render cache', () => {
  describe('When the same cached request comes twice, to two different edge replicas', () => {
    it('should answer the second from the cache: same bytes, no render, no quota, but rate limited', async () => {
      const account = await admin.create('scale');
      const page = newPage();
      const first = await shot(account.accessKey, { url: page.url, cache: true, format: 'png' }, 0);
      expect(first.status, first.body.toString()).toBe(200);
      expect(first.headers['x-service-cache']).toBe('MISS');
      const hitsAfterFirst = fixture.hits(page.path);
      expect(hitsAfterFirst).toBeGreaterThan(0);
      // The reservation is committed once the response is sent.
      await until(async () => (await admin.usage(account.accountId)).used === 1, 5_000, 'first render counted');

      // Same output parameters, spelled differently (key order, an explicit default, cache_ttl).
      const second = await shot(account.accessKey, { format: 'png', cache: true, viewport_width: 1280, url: page.url, cache_ttl: 60 }, 1);
      expect(second.status).toBe(200);
      expect(second.headers['x-service-cache']).toBe('HIT');
      expect(second.headers['content-type']).toBe('image/png');
      expect(Buffer.compare(second.body, first.body)).toBe(0);
      expect(fixture.hits(page.path)).toBe(hitsAfterFirst);
      // The hit counted against the rate limit (fixed one-minute windows: the two may straddle a boundary).
      const remaining = (r: typeof first) => Number(r.headers['x-ratelimit-remaining']);
      if (first.headers['x-ratelimit-reset'] === second.headers['x-ratelimit-reset']) expect(remaining(second)).toBe(remaining(first) - 1);
      else expect(remaining(second)).toBe(Number(second.headers['x-ratelimit-limit']) - 1);
      const usage = await admin.usage(account.accountId);
      expect(usage.used).toBe(1);
      expect(usage.remaining).toBe(usage.quota - 1);
    });
  });

  describe('When identical cached requests arrive at once, on both edges', () => {
    it('should render once, charge one unit, and answer every request the same bytes', async () => {
      const account = await admin.create('scale');
      const hold = holdRoute();
      const path = `/cached-held-${++pages}`;
      fixture.route(path, hold.handler);
      const params = { url: `${fixture.origin}${path}`, cache: true, format: 'png' };
      const answers = Array.from({ length: 6 }, (_, i) => shot(account.accessKey, params, i % 2));
      await until(() => hold.waiting > 0, 20_000, 'the first render to reach the page');
      // Every request is in flight by now; without one render per key each would be at the page too.
      await new Promise((done) => setTimeout(done, 2_000));
      expect(hold.waiting).toBe(1);
      hold.release();
      const responses = await Promise.all(answers);
      for (const res of responses) expect(res.status, res.body.toString()).toBe(200);
      expect(responses.map((r) => r.headers['x-service-cache']).sort()).toEqual(['HIT', 'HIT', 'HIT', 'HIT', 'HIT', 'MISS']);
      for (const res of responses) expect(Buffer.compare(res.body, responses[0]!.body)).toBe(0);
      expect(fixture.hits(path)).toBe(1);
      await until(async () => (await admin.usage(account.accountId)).used === 1, 5_000, 'the render counted');
      await new Promise((done) => setTimeout(done, 500));
      expect((await admin.usage(account.accountId)).used).toBe(1);
    });
  });

  describe('When cache_ttl has passed', () => {
    it('should be a MISS again and render anew', async () => {
      const page = newPage();
      const params = { url: page.url, cache: true, cache_ttl: 2 };
      expect((await shot(stack.demo.accessKey, params)).headers['x-service-cache']).toBe('MISS');
      expect((await shot(stack.demo.accessKey, params)).headers['x-service-cache']).toBe('HIT');
      const hits = fixture.hits(page.path);
      await new Promise((done) => setTimeout(done, 2_500));
      const again = await shot(stack.demo.accessKey, params);
      expect(again.headers['x-service-cache']).toBe('MISS');
      expect(fixture.hits(page.path)).toBeGreaterThan(hits);
    });
  });

  describe('When another account asks for exactly the same render', () => {
    it('should never get the first account’s entry', async () => {
      const [a, b] = [await admin.create('scale'), await admin.create('scale')];
      const page = newPage();
      const params = { url: page.url, cache: true };
      expect((await shot(a.accessKey, params)).headers['x-service-cache']).toBe('MISS');
      expect((await shot(a.accessKey, params)).headers['x-service-cache']).toBe('HIT');
      const hits = fixture.hits(page.path);
      const other = await shot(b.accessKey, params);
      expect(other.headers['x-service-cache']).toBe('MISS');
      expect(fixture.hits(page.path)).toBeGreaterThan(hits);
      await until(async () => (await admin.usage(b.accountId)).used === 1, 5_000, 'second account charged');
    });
  });

  describe('When an output parameter differs', () => {
    it('should be a MISS', async () => {
      const page = newPage();
      expect((await shot(stack.demo.accessKey, { url: page.url, cache: true })).headers['x-service-cache']).toBe('MISS');
      expect((await shot(stack.demo.accessKey, { url: page.url, cache: true, full_page: true })).headers['x-service-cache']).toBe('MISS');
    });
  });

  describe('When the request does not ask for the cache', () => {
    it('should carry no X-Service-Cache header and always render', async () => {
      const page = newPage();
      await shot(stack.demo.accessKey, { url: page.url, cache: true });
      const plain = await shot(stack.demo.accessKey, { url: page.url });
      expect(plain.status).toBe(200);
      expect(plain.headers['x-service-cache']).toBeUndefined();
      expect(fixture.hits(page.path)).toBe(2);
    });
  });

  describe('When an async request is cached', () => {
    it('should finish a repeat from the cache at once, with a file that expires with the entry', async () => {
      const page = newPage();
      const params = { url: page.url, cache: true, cache_ttl: 3, async: true };
      const first = await shot(stack.demo.accessKey, params);
      expect(first.status).toBe(202);
      expect(first.headers['x-service-cache']).toBe('MISS');
      const { id } = first.json<{ id: string }>();
      const status = async (renderId: string) =>
        (await stack.call('GET', `/v1/renders/${renderId}`, { headers: { 'x-access-key': stack.demo.accessKey } })).json<{
          status: string;
          file: string | null;
          expires: number | null;
        }>();
      await until(async () => (await status(id)).status === 'succeeded', 30_000, 'async render');

      const r = await receiver();
      const repeat = await shot(stack.demo.accessKey, { ...params, webhook_url: `${r.url}/cached` }, 1);
      expect(repeat.status).toBe(202);
      expect(repeat.headers['x-service-cache']).toBe('HIT');
      const hit = await status(repeat.json<{ id: string }>().id);
      expect(hit.status).toBe('succeeded');
      expect(hit.file).toBe((await status(id)).file);
      expect(fixture.hits(page.path)).toBe(1);
      // Its webhook goes out like any finished render's, naming the cached file.
      await until(() => r.accepted().length === 1, 10_000, 'webhook of the cache hit');
      const delivered = JSON.parse(r.received[0]!.body);
      expect(delivered).toMatchObject({ status: 'succeeded', expires: hit.expires });
      expect(new URL(delivered.file).pathname).toBe(new URL(hit.file!).pathname);

      const path = new URL(hit.file!).pathname;
      expect((await stack.call('GET', path)).status).toBe(200);
      // `expires` is in whole seconds (rounded down): wait past the end of that second.
      await new Promise((done) => setTimeout(done, Math.max(0, (hit.expires! + 1) * 1000 - Date.now()) + 300));
      const gone = await stack.call('GET', path);
      expect(gone.status).toBe(404);
      expect(gone.json()).toMatchObject({ code: 'file_not_found' });
    });
  });
});
