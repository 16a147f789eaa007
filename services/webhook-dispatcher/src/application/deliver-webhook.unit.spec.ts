import { describe, expect, it, vi } from 'vitest';
import { AppError } from '@app/errors';
import type { WebhookState } from '@app/render-contracts';
import { RenderFinished } from '@app/proto/render';
import type { AttemptOutcome } from '../domain/delivery-decision.js';
import { deliverWebhook } from './deliver-webhook.js';
import type { SigningKeys, WebhookSender } from './ports.js';
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

function setup(outcomes: AttemptOutcome[], keys: SigningKeys = { secretOf: async () => 'sk_secret' }) {
  const states = new Map<string, WebhookState>();
  const sent: { url: string; body: string; headers: Record<string, string> }[] = [];
  const sender: WebhookSender = {
    send: vi.fn(async (url, body, headers) => {
      sent.push({ url, body, headers });
      return outcomes.shift() ?? ({ kind: 'response', status: 200 } as const);
    }),
  };
  let now = 1_800_000_100_000;
  const limiter = receiverLimiter(2);
  const deliver = deliverWebhook({
    keys,
    sender,
    states: { get: async (id) => states.get(id), put: async (id, s) => void states.set(id, s) },
    limiter,
    clock: { now: () => new Date((now += 1_000)) },
    policy: { scheduleMs: [100, 200, 300], jitter: 0, maxDelayMs: 10_000 },
    busyDelayMs: 1_000,
    log: { info: () => undefined, warn: () => undefined },
  });
  return { deliver, states, sent, limiter, sender };
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
});
