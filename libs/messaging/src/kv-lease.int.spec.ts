import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBus, type TestBus } from '@app/testkit';
import { BUCKETS, Kvm, kvLease, type KV } from './index.js';

// A lease over a KV key on a real nats-server 2.9, held by processes with connections of their own.
let bus: TestBus;
let kvA: KV;
let kvB: KV;

beforeAll(async () => {
  bus = await startTestBus('kv-lease');
  const other = await bus.connect('edge-b');
  [kvA, kvB] = await Promise.all([new Kvm(bus.nc).open(BUCKETS.renderStatus.name), new Kvm(other).open(BUCKETS.renderStatus.name)]);
});

afterAll(() => bus?.stop());

describe('A lease over a KV key', () => {
  describe('When two holders take it at the same moment, many times over', () => {
    it('should be held by exactly one of them each time', async () => {
      for (let round = 0; round < 20; round++) {
        const key = `lease.race-${round}`;
        const results = await Promise.all([
          kvLease(kvA, key, { holder: 'a', ttlMs: 60_000 }).acquire(),
          kvLease(kvB, key, { holder: 'b', ttlMs: 60_000 }).acquire(),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
      }
    });
  });

  describe('When its holder keeps renewing it', () => {
    it('should stay with that holder and be refused to the other', async () => {
      const first = kvLease(kvA, 'lease.kept', { holder: 'a', ttlMs: 60_000 });
      const second = kvLease(kvB, 'lease.kept', { holder: 'b', ttlMs: 60_000 });
      expect(await first.acquire()).toBe(true);
      for (let i = 0; i < 3; i++) {
        expect(await second.acquire()).toBe(false);
        expect(await first.acquire()).toBe(true);
      }
    });
  });

  describe('When its holder stops renewing it (it died)', () => {
    it('should go to another holder once it has run out, not before', async () => {
      let now = 1_000_000;
      const clock = () => now;
      const dead = kvLease(kvA, 'lease.dead', { holder: 'a', ttlMs: 10_000, now: clock });
      const next = kvLease(kvB, 'lease.dead', { holder: 'b', ttlMs: 10_000, now: clock });
      expect(await dead.acquire()).toBe(true);
      now += 9_999;
      expect(await next.acquire()).toBe(false);
      now += 2;
      expect(await next.acquire()).toBe(true);
      expect(await dead.acquire()).toBe(false);
    });
  });

  describe('When its holder gives it up', () => {
    it('should go to the other at once', async () => {
      const leaving = kvLease(kvA, 'lease.released', { holder: 'a', ttlMs: 60_000 });
      const staying = kvLease(kvB, 'lease.released', { holder: 'b', ttlMs: 60_000 });
      expect(await leaving.acquire()).toBe(true);
      expect(await staying.acquire()).toBe(false);
      await leaving.release();
      expect(await staying.acquire()).toBe(true);
    });
  });
});
