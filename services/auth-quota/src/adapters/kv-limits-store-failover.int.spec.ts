import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS, Kvm, jetstream, jetstreamManager, type KV } from '@app/messaging';
import { startTestBus, until, type TestBus } from '@app/testkit';
import { reserve, type AccountLimits } from '../domain/limits/account-limits.js';
import { LIMITS_REQUEST_TIMEOUT_MS, kvLimitsStore } from './kv-limits-store.js';

// The account limits on a real three-node nats-server 2.9 cluster, the bucket in three replicas: a change
// asked for while the bucket's leader is lost waits for the next leader instead of failing.
let bus: TestBus;
let kv: KV;
const STREAM = `KV_${BUCKETS.quotaLimits.name}`;

beforeAll(async () => {
  bus = await startTestBus('limits-failover', { clusterSize: 3, replicas: 3 });
  kv = await new Kvm(jetstream(bus.nc, { timeout: LIMITS_REQUEST_TIMEOUT_MS })).open(BUCKETS.quotaLimits.name);
}, 60_000);

afterAll(() => bus?.stop());

const limits: AccountLimits = { rateLimitPerMinute: 1_000, monthlyQuota: 1_000, rendersInFlight: 10 };
const leaderOf = async () => (await (await jetstreamManager(bus.nc)).streams.info(STREAM).catch(() => undefined))?.cluster?.leader;

describe('Account limits while the quota-limits bucket loses its leader', () => {
  describe('When the server leading the bucket is killed and a reservation is asked for at once', () => {
    it('should reserve it once a new leader is elected, and keep what was reserved before', async () => {
      // Tried again for as long as the election may take on a loaded machine (the service's own window is 8 s).
      const store = kvLimitsStore(kv, { busRetryMs: 30_000 });
      const now = Date.now();
      expect(await store.change('acct-failover', (s) => reserve(s, 'before', { settler: 'job', holds: 'render' }, limits, 60_000, now).kind)).toBe('reserved');
      let leader: string | undefined;
      await until(async () => !!(leader = await leaderOf()), 30_000, 'a leader of the bucket');
      const victim = bus.servers.find((s) => s.name === leader)!;
      await victim.kill({ restart: false });
      try {
        const started = Date.now();
        expect(await store.change('acct-failover', (s) => reserve(s, 'during', { settler: 'job', holds: 'render' }, limits, 60_000, now).kind)).toBe('reserved');
        console.log(`[limits-failover] reserved ${Date.now() - started} ms after the bucket's leader was killed`);
        expect(Object.keys((await store.read('acct-failover')).open).sort()).toEqual(['before', 'during']);
      } finally {
        await victim.start();
      }
    });
  });
});
