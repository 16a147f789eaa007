import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@app/logging';
import { BUCKETS, Kvm, kvLease, type KV } from '@app/messaging';
import { EXPIRY_SWEEP_LEASE_KEY } from '@app/render-contracts';
import { startTestBus, until, type TestBus } from '@app/testkit';
import { expirySweeper } from './expiry-sweeper.js';

// The expiry sweepers of two edge replicas sharing one render-status bucket on a real nats-server 2.9.
let bus: TestBus;
let kvs: KV[];
const INTERVAL_MS = 100;
/**
 * Longer than the service's two intervals: a renewal that a loaded machine delays past the lease's life
 * lets the other replica take it, as it should, but this test is about who sweeps while both run.
 */
const LEASE_MS = 30 * INTERVAL_MS;

beforeAll(async () => {
  bus = await startTestBus('sweepers');
  const other = await bus.connect('edge-b');
  kvs = await Promise.all([new Kvm(bus.nc).open(BUCKETS.renderStatus.name), new Kvm(other).open(BUCKETS.renderStatus.name)]);
});

afterAll(() => bus?.stop());

function sweeperOf(kv: KV, holder: string) {
  const sweeps: number[] = [];
  const sweeper = expirySweeper({
    sweep: async () => {
      sweeps.push(Date.now());
      return { files: 0, cacheEntries: 0, stuckRenders: 0 };
    },
    lease: kvLease(kv, EXPIRY_SWEEP_LEASE_KEY, { holder, ttlMs: LEASE_MS }),
    intervalMs: INTERVAL_MS,
    logger: createLogger('edge-http-test', { level: 'silent' }),
  });
  return { sweeper, sweeps };
}

describe('Expiry sweepers of two edge replicas', () => {
  describe('When both run', () => {
    it('should sweep on one replica only; when it stops, the other takes over', async () => {
      const a = sweeperOf(kvs[0]!, 'edge-a');
      const b = sweeperOf(kvs[1]!, 'edge-b');
      a.sweeper.start();
      b.sweeper.start();
      await until(() => a.sweeps.length + b.sweeps.length >= 5, 15_000, 'five sweeps');
      const [holder, other] = a.sweeps.length > 0 ? [a, b] : [b, a];
      expect(holder.sweeps.length).toBeGreaterThanOrEqual(5);
      expect(other.sweeps).toHaveLength(0);

      // Stopped, the holder lets go of the lease: the other replica sweeps from its next turn.
      await holder.sweeper.stop();
      const swept = holder.sweeps.length;
      await until(() => other.sweeps.length >= 3, 15_000, 'three sweeps by the other replica');
      expect(holder.sweeps).toHaveLength(swept);
      await other.sweeper.stop();
    });
  });
});
