import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS, Kvm, type NatsConnection } from '@app/messaging';
import { RENDER_STATUS_KEYS } from '@app/render-contracts';
import { startTestBus, type TestBus } from '@app/testkit';
import type { RenderRecord } from './render-record.js';
import { kvRenderStatus } from './adapters/kv-render-status.js';
import { indexedRenderStatus, kvRecentRenders } from './recent-renders.js';

// The index of each account's recent async renders (the dashboard lists them) against a real nats-server
// 2.9, written by two edges at once.
let bus: TestBus;
let nc: NatsConnection;
let other: NatsConnection;

beforeAll(async () => {
  bus = await startTestBus('recent-renders');
  nc = bus.nc;
  other = await bus.connect('edge-b');
});

afterAll(() => bus?.stop());

const record = (id: string, accountId: string): RenderRecord => ({ id, accountId, operation: 'pdf', format: 'pdf', status: 'queued', createdMs: 1, deadlineMs: 2 });

describe('Recent renders index', () => {
  describe('When two edges accept renders of one account at once', () => {
    it('should list every one, newest first, and never another account', async () => {
      const [a, b] = await Promise.all([new Kvm(nc).open(BUCKETS.renderStatus.name), new Kvm(other).open(BUCKETS.renderStatus.name)]);
      const edgeA = kvRecentRenders(a);
      const edgeB = kvRecentRenders(b);
      await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? edgeA : edgeB).add('acc_1', `r${i}`)));
      await edgeA.add('acc_2', 'x1');
      const listed = await edgeB.list('acc_1');
      expect(new Set(listed)).toEqual(new Set(Array.from({ length: 20 }, (_, i) => `r${i}`)));
      expect(await edgeA.list('acc_2')).toEqual(['x1']);
      await edgeA.add('acc_1', 'newest');
      expect((await edgeA.list('acc_1'))[0]).toBe('newest');
    });
  });

  describe('When an account has more renders than are kept', () => {
    it('should keep the latest only', async () => {
      const recent = kvRecentRenders(await new Kvm(nc).open(BUCKETS.renderStatus.name), 5);
      for (let i = 0; i < 8; i++) await recent.add('acc_3', `r${i}`);
      expect(await recent.list('acc_3')).toEqual(['r7', 'r6', 'r5', 'r4', 'r3']);
    });
  });

  describe('When a render is created through the indexed status store', () => {
    it('should be indexed for its account, and the index stays out of the render keys the sweeper lists', async () => {
      const kv = await new Kvm(nc).open(BUCKETS.renderStatus.name);
      const recent = kvRecentRenders(kv);
      const statuses = indexedRenderStatus(kvRenderStatus(kv), recent, (err) => {
        throw err;
      });
      await statuses.create(record('s1', 'acc_4'));
      expect(await recent.list('acc_4')).toEqual(['s1']);
      const keys: string[] = [];
      for await (const k of await kv.keys(RENDER_STATUS_KEYS)) keys.push(k);
      expect(keys.some((k) => k.startsWith('recent.'))).toBe(false);
      const listed: string[] = [];
      for await (const r of statuses.list()) listed.push(r.id);
      expect(listed).toContain('s1');
    });
  });
});
