import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@app/logging';
import { BUCKETS, Kvm, SUBJECTS, connectNats, ensureTopology, jetstream, type NatsConnection } from '@app/messaging';
import { decodeWebhookState, webhookStateKey } from '@app/render-contracts';
import { RenderFinished } from '@app/proto/render';
import { TaskChangedEvent } from '@app/proto/scheduler';
import type { App } from '@app/runtime';
import { ensureSelfSignedCertificate, startNatsServer, type RunningNats } from '@app/stack';
import { startFixtureServer, startWebhookReceiver, until, type FixtureServer, type ReceiverAnswer } from '@app/testkit';
import { createApp } from './app.js';
import { parseConfig } from './config.js';
import { pinnedWebhookSender } from './adapters/pinned-webhook-sender.js';

// The dispatcher against a real nats-server and real receivers (loopback HTTP and localhost HTTPS).
const SECRET = `sk_${randomBytes(24).toString('base64url')}`;
const SCHEDULE_MS = 400;
let dir: string;
let nats: RunningNats;
let nc: NatsConnection;
let tls: { cert: string; key: string };
let app: App | undefined;
const logger = createLogger('webhook-dispatcher-test', { level: 'silent' });

const config = () =>
  parseConfig({
    NATS_URL: nats.url,
    WEBHOOK_HEALTH_PORT: '0',
    ALLOW_PRIVATE_TARGETS: '1',
    WEBHOOK_RETRY_SCHEDULE: `${SCHEDULE_MS}ms,${SCHEDULE_MS}ms,${SCHEDULE_MS}ms`,
    WEBHOOK_RETRY_JITTER_PERCENT: '0',
    WEBHOOK_TIMEOUT_MS: '700',
    WEBHOOK_MAX_RESPONSE_BYTES: '4096',
    WEBHOOK_PER_RECEIVER_CONCURRENCY: '2',
  });

async function startDispatcher(): Promise<App> {
  const c = config();
  const a = await createApp(c, logger, {
    nats: nc,
    keys: { secretOf: async () => SECRET },
    sender: pinnedWebhookSender({ allowPrivate: true, timeoutMs: c.timeoutMs, maxResponseBytes: c.maxResponseBytes, ca: tls.cert }),
  });
  await a.start();
  return a;
}

async function finish(webhookUrl: string, over: Partial<RenderFinished> = {}): Promise<string> {
  const id = randomUUID();
  const event = RenderFinished.fromPartial({
    job_id: id,
    account_id: 'acc_1',
    operation: 'screenshot',
    status: 'succeeded',
    origin: 'api',
    async: true,
    format: 'png',
    created_unix_ms: Date.now(),
    started_unix_ms: Date.now(),
    finished_unix_ms: Date.now(),
    webhook_url: webhookUrl,
    files_base_url: 'https://api.example/v1/files/',
    placement: { object_name: 'x'.repeat(43), ttl_ms: 86_400_000 },
    result: { object_name: 'x'.repeat(43), content_type: 'image/png', extension: 'png', size: 3, headers: {}, expires_unix_ms: Date.now() + 86_400_000 },
    ...over,
  });
  await jetstream(nc).publish(SUBJECTS.renderEvent('async', 'finished', id), RenderFinished.encode(event).finish(), { msgID: `finished:${id}` });
  return id;
}

const stateOf = async (id: string) => {
  const kv = await new Kvm(nc).open(BUCKETS.renderStatus.name);
  const e = await kv.get(webhookStateKey(id));
  return e ? decodeWebhookState(e.value) : undefined;
};

const receiver = (answer?: (n: number) => ReceiverAnswer, https = false) =>
  startWebhookReceiver({ secret: () => SECRET, answer, ...(https ? { tls } : {}) });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webhook-int-'));
  nats = await startNatsServer({ storeDir: join(dir, 'nats') });
  nc = await connectNats({ servers: nats.url, name: 'webhook-int' });
  await ensureTopology(nc);
  const files = await ensureSelfSignedCertificate(join(dir, 'tls'));
  tls = { cert: files.certPem, key: readFileSync(files.keyFile, 'utf8') };
  app = await startDispatcher();
});

afterAll(async () => {
  await app?.stop();
  await nc?.close();
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** What the scheduler's outbox publishes when a monitoring task's run changed. */
async function taskChanged(webhookUrl: string, runId: string, version: number): Promise<void> {
  const event = TaskChangedEvent.fromPartial({
    event_id: randomUUID(),
    stream_id: 'task-7',
    version,
    task_id: 7,
    run_id: runId,
    account_id: 'acc_1',
    webhook_url: webhookUrl,
    webhook_signed: true,
    score: 1.25,
    summary: '1 line added, 1 line removed; first change: "- $29"',
    before: 'https://api.example/v1/files/b-compared.txt',
    after: 'https://api.example/v1/files/a-compared.txt',
    diff: 'https://api.example/v1/files/a-diff.diff',
    changed_unix_ms: Date.parse('2026-05-04T10:03:01Z'),
  });
  // The outbox's message id: a re-published change is dropped by the broker.
  await jetstream(nc).publish(SUBJECTS.taskChanged, TaskChangedEvent.encode(event).finish(), { msgID: `task-7:${version}` });
}

describe('webhook-dispatcher', () => {
  describe('When a monitoring task changed (published twice by the outbox) and the receiver fails once', () => {
    it('should deliver one signed task.changed webhook, retried with the same webhook-id', async () => {
      const r = await receiver((n) => ({ status: n === 1 ? 503 : 200 }));
      await taskChanged(`${r.url}/changes`, '7-1777888980', 12);
      await taskChanged(`${r.url}/changes`, '7-1777888980', 12);
      await until(() => r.accepted().length === 1, 10_000, 'the change delivered');
      await new Promise((res) => setTimeout(res, SCHEDULE_MS * 3));
      expect(r.received.map((x) => x.status)).toEqual([503, 200]);
      expect(r.received.every((x) => x.standardOk && x.plainOk && x.headers['webhook-id'] === 'change-7-1777888980')).toBe(true);
      expect(JSON.parse(r.accepted()[0]!.body)).toEqual({
        type: 'task.changed',
        task_id: 7,
        run_id: '7-1777888980',
        score: 1.25,
        summary: '1 line added, 1 line removed; first change: "- $29"',
        before: 'https://api.example/v1/files/b-compared.txt',
        after: 'https://api.example/v1/files/a-compared.txt',
        diff: 'https://api.example/v1/files/a-diff.diff',
        created: Date.parse('2026-05-04T10:03:01Z') / 1000,
      });
      await r.close();
    });
  });

  describe('When a render with a webhook finishes and the HTTPS receiver accepts', () => {
    it('should deliver the decided body once, verifiable by Standard Webhooks and by a plain HMAC', async () => {
      const r = await receiver(undefined, true);
      const id = await finish(`${r.url}/hooks/in`);
      await until(() => r.accepted().length === 1, 10_000, 'delivery');
      const [d] = r.received;
      expect(d).toMatchObject({ path: '/hooks/in', standardOk: true, plainOk: true });
      expect(d!.headers['webhook-id']).toBe(id);
      expect(JSON.parse(d!.body)).toMatchObject({ id, status: 'succeeded', format: 'png', size: 3, file: `https://api.example/v1/files/${'x'.repeat(43)}` });
      // A single changed byte of the body fails both checks.
      const { verifyWebhook } = await import('@app/testkit');
      expect(verifyWebhook(SECRET, d!.body.replace('succeeded', 'succeedee'), d!.headers)).toEqual({ standardOk: false, plainOk: false });
      await until(async () => (await stateOf(id))?.state === 'delivered', 5_000, 'state delivered');
      await r.close();
    });
  });

  describe('When one render\'s conclusion arrives twice at once, for two dispatcher replicas, and the receiver is slow', () => {
    it('should send it once: the replica that claimed the attempt sends it, the other waits and then finds it delivered', async () => {
      const second = await startDispatcher();
      try {
        const r = await receiver(() => ({ status: 200, delayMs: 500 }));
        const id = await finish(`${r.url}/hooks/twice`);
        // The same conclusion again under another message id (as a renderer's and the edge's may both publish one).
        const event = RenderFinished.fromPartial({ job_id: id, account_id: 'acc_1', operation: 'screenshot', status: 'failed', origin: 'api', async: true, webhook_url: `${r.url}/hooks/twice` });
        await jetstream(nc).publish(SUBJECTS.renderEvent('async', 'finished', id), RenderFinished.encode(event).finish(), { msgID: `again:${id}` });
        await until(async () => (await stateOf(id))?.state === 'delivered', 10_000, 'state delivered');
        await new Promise((res) => setTimeout(res, 3_000));
        expect(r.received.map((d) => d.headers['webhook-id'])).toEqual([id]);
        await r.close();
      } finally {
        await second.stop();
      }
    });
  });

  describe('When the receiver answers 500 three times and then 200', () => {
    it('should deliver exactly once after the retries, on the schedule, with the same webhook-id', async () => {
      const r = await receiver((n) => ({ status: n <= 3 ? 500 : 200 }));
      const id = await finish(`${r.url}/flaky`);
      await until(() => r.accepted().length === 1, 15_000, 'delivery after retries');
      await new Promise((res) => setTimeout(res, SCHEDULE_MS * 2));
      expect(r.received.map((x) => x.status)).toEqual([500, 500, 500, 200]);
      expect(new Set(r.received.map((x) => x.headers['webhook-id']))).toEqual(new Set([id]));
      expect(r.received.every((x) => x.standardOk && x.plainOk)).toBe(true);
      for (let i = 1; i < r.received.length; i++) expect(r.received[i]!.at - r.received[i - 1]!.at).toBeGreaterThanOrEqual(SCHEDULE_MS - 50);
      expect(await stateOf(id)).toMatchObject({ state: 'delivered', attempts: 4 });
      await r.close();
    });
  });

  describe('When the dispatcher stops in the middle of the schedule', () => {
    it('should deliver after a new dispatcher starts (the schedule lives in JetStream)', async () => {
      let up = false;
      const r = await receiver(() => ({ status: up ? 200 : 503 }));
      const id = await finish(`${r.url}/restart`);
      await until(() => r.received.length === 1, 10_000, 'first attempt');
      await app!.stop();
      app = undefined;
      up = true;
      await new Promise((res) => setTimeout(res, SCHEDULE_MS * 2));
      expect(r.accepted()).toHaveLength(0);
      app = await startDispatcher();
      await until(() => r.accepted().length === 1, 10_000, 'delivery after restart');
      expect(r.accepted()[0]!.headers['webhook-id']).toBe(id);
      await r.close();
    });
  });

  describe('When every attempt fails', () => {
    it('should make schedule length + 1 attempts and record failed', async () => {
      const r = await receiver(() => ({ status: 500 }));
      const id = await finish(`${r.url}/down`);
      await until(async () => (await stateOf(id))?.state === 'failed', 15_000, 'failed state');
      await new Promise((res) => setTimeout(res, SCHEDULE_MS * 2));
      expect(r.received).toHaveLength(4);
      await r.close();
    });
  });

  describe('When the receiver answers 410 Gone', () => {
    it('should stop after one attempt', async () => {
      const r = await receiver(() => ({ status: 410 }));
      const id = await finish(`${r.url}/gone`);
      await until(async () => (await stateOf(id))?.state === 'failed', 10_000, 'failed state');
      await new Promise((res) => setTimeout(res, SCHEDULE_MS * 2));
      expect(r.received).toHaveLength(1);
      expect(await stateOf(id)).toMatchObject({ attempts: 1, lastError: 'gone' });
      await r.close();
    });
  });

  describe('When the receiver redirects', () => {
    let canary: FixtureServer;
    beforeAll(async () => {
      canary = await startFixtureServer();
    });
    afterAll(() => canary.close());
    it('should count a failure and never follow it', async () => {
      const r = await receiver(() => ({ status: 302, headers: { location: `${canary.origin}/` } }));
      const id = await finish(`${r.url}/redirect`);
      await until(async () => (await stateOf(id))?.state === 'failed', 15_000, 'failed state');
      expect(r.received).toHaveLength(4);
      expect(canary.requests).toHaveLength(0);
      await r.close();
    });
  });

  describe('When the receiver never answers or answers a huge body', () => {
    it('should give up at the timeout, and read no more than the cap', async () => {
      const slow = await receiver(() => ({ status: 200, hang: true }));
      const huge = await receiver(() => ({ status: 200, bodyBytes: 50 * 1024 * 1024 }));
      const started = Date.now();
      const slowId = await finish(`${slow.url}/slow`);
      const hugeId = await finish(`${huge.url}/huge`);
      await until(async () => (await stateOf(slowId))?.attempts === 1, 5_000, 'timed-out attempt');
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(await stateOf(slowId)).toMatchObject({ state: 'pending', lastError: 'timeout' });
      await until(async () => (await stateOf(hugeId))?.state === 'delivered', 5_000, 'huge answer delivered');
      expect(huge.bytesWritten()).toBeLessThan(10 * 1024 * 1024);
      await slow.close();
      await huge.close();
    });
  });

  describe('When many renders for one receiver finish together', () => {
    it('should never have more than the per-receiver cap in flight', async () => {
      const r = await receiver(() => ({ status: 200, delayMs: 300 }));
      await Promise.all(Array.from({ length: 6 }, () => finish(`${r.url}/busy`)));
      await until(() => r.accepted().length === 6, 15_000, 'six deliveries');
      expect(r.maxInFlight()).toBe(2);
      await r.close();
    });
  });

  describe('When webhook_signed is false', () => {
    it('should deliver without signatures', async () => {
      const r = await receiver();
      await finish(`${r.url}/unsigned`, { webhook_signed: false });
      await until(() => r.accepted().length === 1, 10_000, 'delivery');
      expect(r.received[0]!.headers['webhook-signature']).toBeUndefined();
      expect(r.received[0]!.headers['x-service-signature']).toBeUndefined();
      await r.close();
    });
  });
});

describe('pinnedWebhookSender (private targets refused)', () => {
  let canary: FixtureServer;
  beforeAll(async () => {
    canary = await startFixtureServer();
  });
  afterAll(() => canary.close());

  const sender = (lookup?: (host: string) => Promise<{ address: string; family: 4 | 6 }[]>) =>
    pinnedWebhookSender({ allowPrivate: false, timeoutMs: 1_000, maxResponseBytes: 1_024, lookup });

  describe('When a public-looking name resolves to loopback at delivery time', () => {
    it('should refuse it without connecting', async () => {
      const rebinding = sender(async () => [{ address: '127.0.0.1', family: 4 }]);
      expect(await rebinding.send(`https://hooks.example.com:${canary.port}/`, '{}', {})).toEqual({ kind: 'target_not_allowed' });
      expect(canary.requests).toHaveLength(0);
    });
  });

  describe.each([
    ['plain http', () => `http://hooks.example.com/`],
    ['loopback', () => `https://127.0.0.1:${canary.port}/`],
    ['IPv4-mapped IPv6 loopback', () => `https://[::ffff:127.0.0.1]:${canary.port}/`],
    ['cloud metadata', () => 'https://169.254.169.254/'],
    ['credentials', () => 'https://user:pass@hooks.example.com/'],
  ])('When the webhook url is %s', (_label, url) => {
    it('should refuse it', async () => {
      expect(await sender(async () => [{ address: '93.184.215.14', family: 4 }]).send(url(), '{}', {})).toEqual({ kind: 'target_not_allowed' });
      expect(canary.requests).toHaveLength(0);
    });
  });

  describe('When the certificate is not trusted', () => {
    it('should fail the attempt (no verification is ever turned off)', async () => {
      const r = await startWebhookReceiver({ secret: () => SECRET, tls });
      const untrusting = pinnedWebhookSender({ allowPrivate: true, timeoutMs: 2_000, maxResponseBytes: 1_024 });
      expect(await untrusting.send(`${r.url}/`, '{}', {})).toEqual({ kind: 'connection_failed' });
      expect(r.received).toHaveLength(0);
      await r.close();
    });
  });
});
