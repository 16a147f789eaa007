import { describe, expect, it, vi } from 'vitest';
import { AppError } from '@app/errors';
import type { WebhookState } from '@app/render-contracts';
import { RenderFinished } from '@app/proto/render';
import type { AttemptOutcome } from '../domain/delivery-decision.js';
import { deliverWebhook } from './deliver-webhook.js';
import type { DeliveryStates, SigningKeys, WebhookSender } from './ports.js';
import { receiverLimiter } from './receiver-limiter.js';

const event = (over: Partial<RenderFinished> = {}) =>
  RenderFinished.fromPartial({
    job_id: 'render-1',
    account_id: 'acc_1',
    operation: 'pdf',
    status: 'succeeded',
    origin: 'api',
    async: true,
    format: 'pdf',
    created_unix_ms: 1_800_000_000_000,
    webhook_url: 'https://hooks.example/in',
    result: { object_name: 'obj', content_type: 'application/pdf', extension: 'pdf', size: 10, headers: {}, expires_unix_ms: 1 },
    ...over,
  });

/** The shared delivery state as the KV bucket keeps it: each write a new revision, conditional writes checked. */
function memoryStates() {
  const states = new Map<string, WebhookState>();
  const revisions = new Map<string, number>();
  let sequence = 0;
  const port: DeliveryStates = {
    get: async (id) => (states.has(id) ? { state: states.get(id)!, revision: revisions.get(id)! } : undefined),
    putIf: async (id, state, revision) => {
      if ((revisions.get(id) ?? 0) !== revision) return undefined;
      states.set(id, state);
      revisions.set(id, ++sequence);
      return sequence;
    },
    put: async (id, state) => void (states.set(id, state), revisions.set(id, ++sequence)),
  };
  return { states, port };
}

function setup(outcomes: AttemptOutcome[], keys: SigningKeys = { secretOf: async () => 'sk_secret' }, send?: WebhookSender['send']) {
  const { states, port } = memoryStates();
  const sent: { url: string; body: string; headers: Record<string, string> }[] = [];
  const sender: WebhookSender = {
    send: vi.fn(async (url, body, headers) => {
      sent.push({ url, body, headers });
      return send ? send(url, body, headers) : (outcomes.shift() ?? ({ kind: 'response', status: 200 } as const));
    }),
  };
  let now = 1_800_000_100_000;
  const limiter = receiverLimiter(2);
  const deliver = deliverWebhook({
    keys,
    sender,
    states: port,
    limiter,
    clock: { now: () => new Date((now += 1_000)) },
    policy: { scheduleMs: [100, 200, 300], jitter: 0, maxDelayMs: 10_000 },
    busyDelayMs: 1_000,
    claimMs: 60_000,
    log: { info: () => undefined, warn: () => undefined },
  });
  return { deliver, states, port, sent, limiter, sender, advance: (ms: number) => void (now += ms) };
}

describe('deliverWebhook', () => {
  describe('When the receiver fails three times and then accepts', () => {
    it('should nak on the schedule, then ack, with the same webhook-id and a new timestamp each attempt', async () => {
      const { deliver, states, sent } = setup([
        { kind: 'response', status: 500 },
        { kind: 'timeout' },
        { kind: 'response', status: 503 },
      ]);
      const dispositions = [];
      for (let i = 0; i < 4; i++) dispositions.push(await deliver(event()));
      expect(dispositions).toEqual([
        { kind: 'nak', delayMs: 100 },
        { kind: 'nak', delayMs: 200 },
        { kind: 'nak', delayMs: 300 },
        { kind: 'ack' },
      ]);
      expect(new Set(sent.map((s) => s.headers['webhook-id']))).toEqual(new Set(['render-1']));
      expect(new Set(sent.map((s) => s.headers['webhook-timestamp'])).size).toBe(4);
      expect(new Set(sent.map((s) => s.body)).size).toBe(1);
      expect(states.get('render-1')).toMatchObject({ state: 'delivered', attempts: 4, lastStatus: 200 });
    });
  });

  describe('When the message comes back after the webhook was delivered', () => {
    it('should ack without sending again', async () => {
      const { deliver, sent } = setup([]);
      expect(await deliver(event())).toEqual({ kind: 'ack' });
      expect(await deliver(event())).toEqual({ kind: 'ack' });
      expect(sent).toHaveLength(1);
    });
  });

  describe('When every attempt fails', () => {
    it('should make schedule length + 1 attempts, then term and record failed', async () => {
      const { deliver, states, sent } = setup(Array.from({ length: 10 }, () => ({ kind: 'response', status: 500 }) as const));
      const last = [];
      for (let i = 0; i < 4; i++) last.push((await deliver(event())).kind);
      expect(last).toEqual(['nak', 'nak', 'nak', 'term']);
      expect(await deliver(event())).toEqual({ kind: 'ack' });
      expect(sent).toHaveLength(4);
      expect(states.get('render-1')).toMatchObject({ state: 'failed', attempts: 4 });
    });
  });

  describe('When webhook_signed is false', () => {
    it('should send no signature, only the id and timestamp', async () => {
      const { deliver, sent } = setup([]);
      await deliver(event({ webhook_signed: false }));
      expect(sent[0]!.headers['webhook-signature']).toBeUndefined();
      expect(sent[0]!.headers['x-service-signature']).toBeUndefined();
      expect(sent[0]!.headers['webhook-id']).toBe('render-1');
    });
  });

  describe('When the render has no webhook', () => {
    it('should ack without sending', async () => {
      const { deliver, sent } = setup([]);
      expect(await deliver(event({ webhook_url: undefined }))).toEqual({ kind: 'ack' });
      expect(sent).toHaveLength(0);
    });
  });

  describe('When the receiver is at its concurrency cap', () => {
    it('should give the message back without an attempt', async () => {
      const { deliver, sent, limiter, states } = setup([]);
      limiter.tryAcquire('https://hooks.example');
      limiter.tryAcquire('https://hooks.example');
      expect(await deliver(event())).toEqual({ kind: 'nak', delayMs: 1_000 });
      expect(sent).toHaveLength(0);
      expect(states.get('render-1')).toBeUndefined();
    });
  });

  describe('When the signing key is briefly unavailable', () => {
    it('should postpone without counting an attempt', async () => {
      const { deliver, sent, states } = setup([], { secretOf: async () => Promise.reject(new AppError('service_unavailable', 'down')) });
      expect(await deliver(event())).toEqual({ kind: 'nak', delayMs: 1_000 });
      expect(sent).toHaveLength(0);
      expect(states.get('render-1')).toBeUndefined();
    });
  });

  describe('When the account no longer exists', () => {
    it('should stop and record failed', async () => {
      const { deliver, states } = setup([], { secretOf: async () => Promise.reject(new AppError('not_found', 'gone')) });
      expect(await deliver(event())).toEqual({ kind: 'term' });
      expect(states.get('render-1')).toMatchObject({ state: 'failed', lastError: 'account_not_found' });
    });
  });

  describe('When a task run finishes with a webhook', () => {
    it('should deliver it with its task_id', async () => {
      const { deliver, sent } = setup([]);
      await deliver(event({ origin: 'task', task_id: '7', async: false }));
      expect(JSON.parse(sent[0]!.body)).toMatchObject({ id: 'render-1', task_id: '7', status: 'succeeded' });
    });
  });

  describe('When the same delivery reaches a second worker while the first is still sending it', () => {
    it('should send it once: the second waits for the first claim instead of sending too', async () => {
      let answer: (o: AttemptOutcome) => void = () => undefined;
      const { deliver, sent, states } = setup([], undefined, () => new Promise<AttemptOutcome>((r) => (answer = r)));
      const first = deliver(event());
      await vi.waitFor(() => expect(sent).toHaveLength(1));
      const second = await deliver(event());
      expect(second.kind).toBe('nak');
      expect(second.kind === 'nak' && second.delayMs).toBeGreaterThan(50_000);
      answer({ kind: 'response', status: 200 });
      expect(await first).toEqual({ kind: 'ack' });
      expect(await deliver(event())).toEqual({ kind: 'ack' });
      expect(sent).toHaveLength(1);
      expect(states.get('render-1')).toMatchObject({ state: 'delivered', attempts: 1 });
    });
  });

  describe('When two workers read the same state and both try to claim the attempt', () => {
    it('should let the first claim win and give the message back to the other unsent', async () => {
      const { deliver, port, sent } = setup([]);
      const getBoth = port.get;
      let reads = 0;
      let release: () => void = () => undefined;
      const gate = new Promise<void>((r) => (release = r));
      // Both workers read before either writes: the compare-and-set decides.
      port.get = async (id) => {
        const read = await getBoth(id);
        if (++reads === 2) release();
        await gate;
        return read;
      };
      const [a, b] = await Promise.all([deliver(event()), deliver(event())]);
      expect([a, b].map((d) => d.kind).sort()).toEqual(['ack', 'nak']);
      expect(sent).toHaveLength(1);
    });
  });

  describe('When the worker that claimed an attempt died before telling how it went', () => {
    it('should send it again once the claim ran out (at least once)', async () => {
      const { deliver, sent, port, advance } = setup([]);
      await port.putIf('render-1', { state: 'pending', attempts: 0, sendingUntilUnixMs: 1_800_000_100_000 + 30_000 }, 0);
      expect((await deliver(event())).kind).toBe('nak');
      advance(60_000);
      expect(await deliver(event())).toEqual({ kind: 'ack' });
      expect(sent).toHaveLength(1);
    });
  });

  describe('When the outcome cannot be recorded (the store stayed away past its retries)', () => {
    it('should not settle the message: it fails, so the message comes back rather than being acked unrecorded', async () => {
      const { deliver, port } = setup([]);
      port.put = async () => Promise.reject(new Error('TimeoutError'));
      await expect(deliver(event())).rejects.toThrow();
    });
  });
});
