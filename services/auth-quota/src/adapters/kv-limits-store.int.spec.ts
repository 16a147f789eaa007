import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS, Kvm, type KV } from '@app/messaging';
import { startTestBus, type TestBus } from '@app/testkit';
import { MAX_RENDERS_IN_FLIGHT, reserve, settle, type AccountLimits } from '../domain/limits/account-limits.js';
import { kvLimitsStore } from './kv-limits-store.js';

// The account limits value against a real nats-server 2.9, at the largest renders-in-flight limit a plan may have.
let bus: TestBus;
let kv: KV;

beforeAll(async () => {
  bus = await startTestBus('auth-quota');
  kv = await new Kvm(bus.nc).open(BUCKETS.quotaLimits.name);
});

afterAll(() => bus?.stop());

const limits: AccountLimits = { rateLimitPerMinute: 1_000_000, monthlyQuota: 1_000_000, rendersInFlight: MAX_RENDERS_IN_FLIGHT };
const HOLD_MS = 15 * 60_000;

describe('Account limits in the quota-limits bucket', () => {
  describe('When one account holds the largest number of renders in flight, reserved from several replicas at once', () => {
    it('should reserve every one, refuse the next as concurrency limited, and settle every one exactly once', async () => {
      const replicas = [kvLimitsStore(kv), kvLimitsStore(kv)];
      const now = Date.now();
      const ids = Array.from({ length: MAX_RENDERS_IN_FLIGHT }, (_, i) => `res-${String(i).padStart(5, '0')}`);
      // Batches of 25 admissions at once, alternating replicas, as auth-quota batches an account's admissions.
      for (let i = 0; i < ids.length; i += 100) {
        await Promise.all(
          [0, 1, 2, 3].map((b) => {
            const batch = ids.slice(i + b * 25, i + b * 25 + 25);
            return replicas[b % 2]!.change('acct-big', (s) => batch.map((id) => reserve(s, id, { settler: 'job', holds: 'render' }, limits, HOLD_MS, now).kind));
          }),
        ).then((decided) => expect(decided.flat()).toEqual(Array(100).fill('reserved')));
      }
      const refused = await replicas[0]!.change('acct-big', (s) => reserve(s, 'one-more', { settler: 'job', holds: 'render' }, limits, HOLD_MS, now));
      expect(refused.kind).toBe('concurrency_limited');

      // The whole value stays far below the bus's message size (1 MiB): every change of it is one small write.
      const entry = await kv.get('account.acct-big');
      expect(entry!.value.byteLength).toBeLessThan(128 * 1024);

      const results = await Promise.all(ids.map((id, i) => replicas[i % 2]!.change('acct-big', (s) => settle(s, id, true, 'job', now))));
      expect(results.every((r) => r === 'committed')).toBe(true);
      const state = await replicas[1]!.read('acct-big');
      expect(Object.keys(state.open)).toHaveLength(0);
      expect(Object.values(state.used).reduce((a, b) => a + b, 0)).toBe(MAX_RENDERS_IN_FLIGHT);
    });
  });

  describe('When one change of a batch throws', () => {
    it('should fail that change alone and write the others as if it never ran', async () => {
      const store = kvLimitsStore(kv);
      const now = Date.now();
      const results = await Promise.allSettled([
        store.change('acct-batch', (s) => reserve(s, 'first', { settler: 'job', holds: 'render' }, limits, HOLD_MS, now).kind),
        store.change('acct-batch', (s) => {
          reserve(s, 'from-a-broken-change', { settler: 'job', holds: 'render' }, limits, HOLD_MS, now);
          throw new Error('broken');
        }),
        store.change('acct-batch', (s) => reserve(s, 'third', { settler: 'job', holds: 'render' }, limits, HOLD_MS, now).kind),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const state = await store.read('acct-batch');
      expect(Object.keys(state.open).sort()).toEqual(['first', 'third']);
    });
  });
});
