import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@app/errors';
import { BUCKETS, Kvm, connectNats, ensureTopology, type NatsConnection } from '@app/messaging';
import { startNatsServer, type RunningNats } from '@app/stack';
import { kvSessionStore } from './kv-session-store.js';
import { kvFailureCounters } from './kv-failure-counters.js';
import { signInThrottle } from './sign-in-throttle.js';

// The dashboard's stores against a real nats-server 2.9: the session bucket and the failed sign-in counters.
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
