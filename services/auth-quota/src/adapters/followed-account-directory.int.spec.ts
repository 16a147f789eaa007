import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteEventStore, type EventStore } from '@app/event-store';
import { hashKey } from '../domain/account/keys.js';
import { eventSourcedAccountCommands } from './event-sourced-accounts.js';
import { followedAccountDirectory } from './followed-account-directory.js';

// Two replicas' directories over one real event store (SQLite): what one replica opens, the other finds
// without being told, and a key nobody opened costs one shared read however many ask for it at once.
let dir: string;
let store: EventStore;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'directory-'));
  store = sqliteEventStore({ path: join(dir, 'events.db') });
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

let opened = 0;
const openAccount = async (accessKey: string) => {
  const accountId = `acc_directory_${++opened}`;
  await eventSourcedAccountCommands(store).handle(accountId, {
    type: 'OpenAccount',
    data: { accountId, name: 'D', plan: 'basic', keys: { accessKeyHash: hashKey(accessKey), sealedSecretKey: 'sealed' } },
    metadata: { now: new Date() },
  });
  return accountId;
};

/** The store, counting the reads of all events a directory makes. */
const counting = (inner: EventStore) => {
  const counted = { reads: 0, store: inner };
  counted.store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'readAll') {
        return (...args: Parameters<EventStore['readAll']>) => {
          counted.reads++;
          return target.readAll(...args);
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return counted;
};

describe('followedAccountDirectory', () => {
  describe('When another replica opened an account an instant ago and its announcement has not arrived', () => {
    it('should find the account by its key and by its id at the first lookup', async () => {
      const replica = followedAccountDirectory(store);
      await replica.refresh();

      const accountId = await openAccount('ak_made_elsewhere');

      expect((await replica.byAccessKeyHash(hashKey('ak_made_elsewhere')))?.accountId).toBe(accountId);
      const other = await openAccount('ak_made_elsewhere_too');
      expect((await replica.byId(other))?.keys.accessKeyHash).toBe(hashKey('ak_made_elsewhere_too'));
    });
  });

  describe('When many requests at once carry keys nobody opened', () => {
    it('should answer that it knows none of them after sharing at most two reads of the store', async () => {
      const counted = counting(store);
      const replica = followedAccountDirectory(counted.store);
      await replica.refresh();
      counted.reads = 0;

      const found = await Promise.all(Array.from({ length: 100 }, (_, i) => replica.byAccessKeyHash(hashKey(`ak_nobody_${i}`))));

      expect(found.every((a) => a === undefined)).toBe(true);
      expect(counted.reads).toBeGreaterThan(0);
      expect(counted.reads).toBeLessThanOrEqual(2);
    });
  });

  describe('When keys nobody opened arrive one after another for 300 ms', () => {
    it('should read the store at most once per spacing, not once per key', async () => {
      const counted = counting(store);
      const spacingMs = 10;
      const replica = followedAccountDirectory(counted.store, { missReadSpacingMs: spacingMs });
      await replica.refresh();
      counted.reads = 0;

      let asked = 0;
      const startedMs = performance.now();
      while (performance.now() - startedMs < 300) {
        expect(await replica.byAccessKeyHash(hashKey(`ak_flood_${++asked}`))).toBeUndefined();
      }

      const elapsedMs = performance.now() - startedMs;

      expect(asked).toBeGreaterThan(5);
      // A timer may fire a millisecond or two early against performance.now() (the event loop's clock is read once a turn).
      expect(counted.reads).toBeLessThanOrEqual(Math.ceil(elapsedMs / (spacingMs - 2)) + 1);
    });

    it('should still find a key opened elsewhere during the flood at its first use', async () => {
      const replica = followedAccountDirectory(store, { missReadSpacingMs: 25 });
      await replica.refresh();
      const flood = Array.from({ length: 20 }, (_, i) => replica.byAccessKeyHash(hashKey(`ak_flood_again_${i}`)));

      const accountId = await openAccount('ak_opened_in_the_flood');

      expect((await replica.byAccessKeyHash(hashKey('ak_opened_in_the_flood')))?.accountId).toBe(accountId);
      expect((await Promise.all(flood)).every((a) => a === undefined)).toBe(true);
    });
  });

  describe('When a key nobody opened is asked after a quiet spell, and then a key opened since', () => {
    it('should read again for the second: the first read is not shared past its start', async () => {
      const replica = followedAccountDirectory(store);
      await replica.refresh();
      await new Promise((r) => setTimeout(r, 20));

      expect(await replica.byAccessKeyHash(hashKey('ak_before_the_quiet_ended'))).toBeUndefined();
      const accountId = await openAccount('ak_after_the_quiet');

      expect((await replica.byAccessKeyHash(hashKey('ak_after_the_quiet')))?.accountId).toBe(accountId);
    });
  });

  describe('When a key this replica knows is looked up', () => {
    it('should answer without reading the store', async () => {
      await openAccount('ak_known');
      const counted = counting(store);
      const replica = followedAccountDirectory(counted.store);
      await replica.refresh();
      counted.reads = 0;

      expect(await replica.byAccessKeyHash(hashKey('ak_known'))).toBeDefined();
      expect(counted.reads).toBe(0);
    });
  });
});
