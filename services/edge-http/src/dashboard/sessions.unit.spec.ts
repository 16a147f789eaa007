import { describe, expect, it } from 'vitest';
import { AppError, hasCode } from '@app/errors';
import type { AccountConsole, ConsoleAccount, SessionRecord, SessionStore } from './ports.js';
import { dashboardSessions } from './sessions.js';

const account = (generation: string): ConsoleAccount => ({
  accountId: 'acc_1',
  name: 'Demo',
  plan: 'scale',
  signatureRequired: false,
  billingStatus: 'paid',
  rateLimitPerMinute: 150,
  monthlyQuota: 50_000,
  keyGeneration: generation,
});

function given() {
  const records = new Map<string, SessionRecord>();
  const store: SessionStore = {
    put: async (id, r) => void records.set(id, r),
    get: async (id) => records.get(id),
    remove: async (id) => void records.delete(id),
  };
  let generation = 'g1';
  let nowMs = Date.parse('2026-11-23T10:00:00Z');
  const console = {
    signIn: async (accessKey: string, secretKey: string) => {
      if (accessKey !== 'ak_1' || secretKey !== 'sk_1') throw new AppError('keys_invalid', 'no');
      return account(generation);
    },
    account: async () => account(generation),
    rotateKeys: async () => {
      generation = `g${Number(generation.slice(1)) + 1}`;
      return { accessKey: 'ak_2', secretKey: 'sk_2', account: account(generation) };
    },
  } as unknown as AccountConsole;
  const sessions = dashboardSessions({ store, console, clock: { now: () => new Date(nowMs) } });
  return {
    sessions,
    records,
    rotateElsewhere: () => void (generation = 'g9'),
    later: (ms: number) => void (nowMs += ms),
  };
}

const expired = async (p: Promise<unknown>) => {
  const err = await p.then(() => undefined, (e: unknown) => e);
  return hasCode(err, 'session_expired');
};

describe('Dashboard sessions', () => {
  describe('When the owner signs in with both keys', () => {
    it('should resume from the cookie token with the access key, while the store holds neither', async () => {
      const { sessions, records } = given();
      const s = await sessions.signIn('ak_1', 'sk_1');
      const resumed = await sessions.resume(s.token);
      expect(resumed).toMatchObject({ accessKey: 'ak_1', csrfToken: s.csrfToken });
      const stored = JSON.stringify([...records]);
      expect(stored).not.toContain(s.token);
      expect(stored).not.toContain('ak_1');
    });
  });

  describe('When the keys are wrong', () => {
    it('should open no session', async () => {
      const { sessions, records } = given();
      await expect(sessions.signIn('ak_1', 'sk_x')).rejects.toMatchObject({ code: 'keys_invalid' });
      expect(records.size).toBe(0);
    });
  });

  describe('When 12 hours have passed', () => {
    it('should be over', async () => {
      const { sessions, later } = given();
      const s = await sessions.signIn('ak_1', 'sk_1');
      later(12 * 60 * 60 * 1000 - 1);
      await sessions.resume(s.token);
      later(1);
      expect(await expired(sessions.resume(s.token))).toBe(true);
    });
  });

  describe('When the keys are rotated anywhere', () => {
    it('should end every session of the older keys', async () => {
      const { sessions, rotateElsewhere } = given();
      const s = await sessions.signIn('ak_1', 'sk_1');
      rotateElsewhere();
      expect(await expired(sessions.resume(s.token))).toBe(true);
    });

    it('should let the session that rotated continue under a new token only', async () => {
      const { sessions } = given();
      const s = await sessions.signIn('ak_1', 'sk_1');
      const other = await sessions.signIn('ak_1', 'sk_1');
      const { keys, session } = await sessions.rotate(s);
      expect(keys).toEqual({ accessKey: 'ak_2', secretKey: 'sk_2' });
      expect((await sessions.resume(session.token)).accessKey).toBe('ak_2');
      expect(await expired(sessions.resume(s.token))).toBe(true);
      expect(await expired(sessions.resume(other.token))).toBe(true);
    });
  });

  describe('When the cookie is missing, malformed or signed out', () => {
    it('should be session_expired', async () => {
      const { sessions } = given();
      expect(await expired(sessions.resume(undefined))).toBe(true);
      expect(await expired(sessions.resume('not a token'))).toBe(true);
      const s = await sessions.signIn('ak_1', 'sk_1');
      await sessions.end(s.token);
      expect(await expired(sessions.resume(s.token))).toBe(true);
    });
  });
});
