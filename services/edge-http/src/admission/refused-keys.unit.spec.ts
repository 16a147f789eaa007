import { describe, expect, it, vi } from 'vitest';
import { errors } from '@app/errors';
import type { AuthQuota } from '../application/ports.js';
import { refusedKeysCache } from './refused-keys.js';

const admitted = { account: { accountId: 'a', plan: 'basic' }, rateLimit: { limit: 1, remaining: 1, resetUnix: 1 } };
const request = (accessKey: string) => ({ accessKey, usage: 'read' as const, features: [], signedQuery: '', body: new Uint8Array() });

function fakeAuthQuota(valid: Set<string>): AuthQuota {
  return {
    admit: vi.fn(async (r) => {
      if (!r.accountId && !valid.has(r.accessKey)) throw errors.accessKeyInvalid();
      return admitted;
    }),
    reserve: vi.fn(),
    endReservation: vi.fn(),
    commit: vi.fn(),
    release: vi.fn(),
    usage: vi.fn(),
  };
}

describe('refusedKeysCache', () => {
  describe('When a key was refused', () => {
    it('should refuse it again without asking auth-quota until the entry expires', async () => {
      let t = 0;
      const inner = fakeAuthQuota(new Set());
      const cache = refusedKeysCache(inner, { ttlMs: 1_000, maxEntries: 10, now: () => t });
      await expect(cache.authQuota.admit(request('bad'))).rejects.toMatchObject({ code: 'access_key_invalid' });
      await expect(cache.authQuota.admit(request('bad'))).rejects.toMatchObject({ code: 'access_key_invalid' });
      expect(inner.admit).toHaveBeenCalledTimes(1);
      t = 1_001;
      await expect(cache.authQuota.admit(request('bad'))).rejects.toMatchObject({ code: 'access_key_invalid' });
      expect(inner.admit).toHaveBeenCalledTimes(2);
    });
  });

  describe('When keys change after a refusal', () => {
    it('should ask auth-quota again once forgotten, so a new key works at once', async () => {
      const valid = new Set<string>();
      const inner = fakeAuthQuota(valid);
      const cache = refusedKeysCache(inner, { ttlMs: 60_000, maxEntries: 10 });
      await expect(cache.authQuota.admit(request('k'))).rejects.toBeDefined();
      valid.add('k');
      cache.forget();
      await expect(cache.authQuota.admit(request('k'))).resolves.toEqual(admitted);
    });
  });

  describe('When a key is valid', () => {
    it('should never cache it (a rotation must refuse it at once)', async () => {
      const valid = new Set(['good']);
      const inner = fakeAuthQuota(valid);
      const cache = refusedKeysCache(inner, { ttlMs: 60_000, maxEntries: 10 });
      await cache.authQuota.admit(request('good'));
      valid.delete('good');
      await expect(cache.authQuota.admit(request('good'))).rejects.toMatchObject({ code: 'access_key_invalid' });
    });
  });

  describe('When requests without a key were refused', () => {
    it('should still ask auth-quota for a request admitted by its account (a dashboard session)', async () => {
      const inner = fakeAuthQuota(new Set());
      const cache = refusedKeysCache(inner, { ttlMs: 60_000, maxEntries: 10 });
      await expect(cache.authQuota.admit(request(''))).rejects.toMatchObject({ code: 'access_key_invalid' });
      await expect(cache.authQuota.admit({ ...request(''), accountId: 'a' })).resolves.toEqual(admitted);
      expect(inner.admit).toHaveBeenCalledTimes(2);
    });
  });
});
