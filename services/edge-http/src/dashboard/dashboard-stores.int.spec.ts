import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@app/errors';
import { BUCKETS, Kvm, connectNats, ensureTopology, type NatsConnection } from '@app/messaging';
import { RENDER_STATUS_KEYS } from '@app/render-contracts';
import { startNatsServer, type RunningNats } from '@app/stack';
import { kvRenderStatus } from '../results/adapters/kv-render-status.js';
import type { RenderRecord } from '../results/render-record.js';
import { indexedRenderStatus, kvRecentRenders } from './recent-renders.js';
import { kvSessionStore } from './kv-session-store.js';
import { kvFailureCounters } from './kv-failure-counters.js';
import { signInThrottle } from './sign-in-throttle.js';

// The dashboard's stores against a real nats-server 2.9: the recent-renders index, the session bucket and
// the failed sign-in counters.
let dir: string;
let nats: RunningNats;
let nc: NatsConnection;
let other: NatsConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dashboard-stores-'));
  nats = await startNatsServer({ storeDir: join(dir, 'nats') });
  nc = await connectNats({ servers: nats.url, name: 'edge-a' });
  other = await connectNats({ servers: nats.url, name: 'edge-b' });
  await ensureTopology(nc);
});

afterAll(async () => {
  await nc?.close();
  await other?.close();
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

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

describe('Session store', () => {
  describe('When one edge opens a session', () => {
    it('should be seen by another edge, and gone everywhere once removed', async () => {
      const a = kvSessionStore(await new Kvm(nc).open(BUCKETS.dashboardSessions.name));
      const b = kvSessionStore(await new Kvm(other).open(BUCKETS.dashboardSessions.name));
      const rec = { accountId: 'acc_1', keyGeneration: 'g1', sealedAccessKey: 'x.y.z', createdMs: 1, expiresMs: 2 };
      await a.put('f'.repeat(64), rec);
      expect(await b.get('f'.repeat(64))).toEqual(rec);
      await b.remove('f'.repeat(64));
      expect(await a.get('f'.repeat(64))).toBeUndefined();
    });
  });
});

describe('Failed sign-in counters', () => {
  describe('When guesses at one key from one address race on two edges', () => {
    it('should count them one by one across the edges: the 5 free ones are checked, every other is refused', async () => {
      const clock = { now: () => new Date() };
      const [a, b] = await Promise.all([new Kvm(nc).open(BUCKETS.signInFailures.name), new Kvm(other).open(BUCKETS.signInFailures.name)]);
      const edges = [signInThrottle({ counters: kvFailureCounters(a), clock }), signInThrottle({ counters: kvFailureCounters(b), clock })];
      const wrong = new AppError('keys_invalid', 'wrong keys');
      const outcomes = await Promise.all(
        Array.from({ length: 24 }, async (_, i) => {
          try {
            const attempt = await edges[i % 2]!.attempt('ak_race', '192.0.2.44');
            await attempt.settle(wrong);
            return 'checked';
          } catch (err) {
            return (err as { code?: string }).code ?? String(err);
          }
        }),
      );
      expect(outcomes.filter((o) => o === 'checked'), outcomes.join()).toHaveLength(5);
      expect(outcomes.filter((o) => o === 'rate_limited')).toHaveLength(19);
      // Another address is not slowed; the counters hold hashes, never the key or the address.
      await (await edges[1]!.attempt('ak_race', '192.0.2.45')).settle('succeeded');
      const keys: string[] = [];
      for await (const k of await a.keys()) keys.push(k);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.join(' ')).not.toMatch(/ak_race|192\.0\.2/);
    });
  });
});
