import { describe, expect, it } from 'vitest';
import { AppError, isAppError } from '@app/errors';
import { SIGN_IN_THROTTLE, clientOf, delayAfter, signInThrottle } from './sign-in-throttle.js';
import { memoryFailureCounters } from './testing/memory-failure-counters.js';

const wrongKeys = new AppError('keys_invalid', 'The access key and secret key do not match an account.');

/** A throttle on a clock the test moves. */
function given() {
  let nowMs = Date.UTC(2026, 10, 27, 12);
  const counters = memoryFailureCounters();
  const throttle = signInThrottle({ counters, clock: { now: () => new Date(nowMs) } });
  /** One wrong sign-in: 'counted', or the seconds of the 429's Retry-After. */
  const guess = async (accessKey: string, address: string): Promise<'counted' | number> => {
    try {
      const attempt = await throttle.attempt(accessKey, address);
      await attempt.settle(wrongKeys);
      return 'counted';
    } catch (err) {
      if (!isAppError(err) || err.code !== 'rate_limited') throw err;
      return err.retryAfterSeconds!;
    }
  };
  return { throttle, counters, guess, advance: (ms: number) => (nowMs += ms) };
}

describe('Sign-in throttle', () => {
  describe('When one address guesses the secret of one access key', () => {
    it('should allow 5 at once, then refuse with a Retry-After that doubles after each counted guess, up to 15 minutes', async () => {
      const { guess, advance } = given();
      for (let i = 0; i < 5; i++) expect(await guess('ak_1', '203.0.113.7')).toBe('counted');
      const waits: number[] = [];
      for (let i = 0; i < 12; i++) {
        const retryAfter = await guess('ak_1', '203.0.113.7');
        expect(typeof retryAfter).toBe('number');
        waits.push(retryAfter as number);
        expect(await guess('ak_1', '203.0.113.7')).toBe(retryAfter);
        advance((retryAfter as number) * 1000);
        expect(await guess('ak_1', '203.0.113.7')).toBe('counted');
      }
      expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
    });
  });

  describe('When an address has been throttled on a key', () => {
    it('should let the owner sign in from another address at once, and the same address once the owner got in', async () => {
      const { throttle, guess } = given();
      for (let i = 0; i < 5; i++) await guess('ak_1', '203.0.113.7');
      expect(typeof (await guess('ak_1', '203.0.113.7'))).toBe('number');
      const owner = await throttle.attempt('ak_1', '198.51.100.2');
      await owner.settle('succeeded');
      // Another key from the throttled address is not slowed either (its address count is below 20).
      expect(await guess('ak_2', '203.0.113.7')).toBe('counted');
    });
  });

  describe('When one address tries many access keys', () => {
    it('should slow the address after 20 failures, whatever the key', async () => {
      const { guess } = given();
      for (let i = 0; i < 20; i++) expect(await guess(`ak_${i}`, '203.0.113.9')).toBe('counted');
      expect(await guess('ak_new', '203.0.113.9')).toBe(1);
      expect(await guess('ak_new', '203.0.113.10')).toBe('counted');
    });
  });

  describe('When the owner signs in after a few mistakes', () => {
    it("should forget that key's failures at that address", async () => {
      const { throttle, guess } = given();
      for (let i = 0; i < 4; i++) await guess('ak_1', '203.0.113.7');
      await (await throttle.attempt('ak_1', '203.0.113.7')).settle('succeeded');
      for (let i = 0; i < 5; i++) expect(await guess('ak_1', '203.0.113.7')).toBe('counted');
    });
  });

  describe('When a sign-in could not be decided (auth-quota unavailable)', () => {
    it('should not count it', async () => {
      const { throttle, guess } = given();
      for (let i = 0; i < 10; i++) {
        await (await throttle.attempt('ak_1', '203.0.113.7')).settle(new AppError('service_unavailable', 'down'));
      }
      for (let i = 0; i < 5; i++) expect(await guess('ak_1', '203.0.113.7')).toBe('counted');
    });
  });

  describe('When many guesses race on one counter', () => {
    it('should count them one by one: exactly the free ones get through', async () => {
      const { guess } = given();
      const answers = await Promise.all(Array.from({ length: 30 }, () => guess('ak_1', '203.0.113.7')));
      expect(answers.filter((a) => a === 'counted')).toHaveLength(5);
    });
  });

  describe('When addresses are IPv6', () => {
    it('should count a whole /64 as one client, and an IPv4-mapped address as its IPv4 address', () => {
      expect(clientOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
      expect(clientOf('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
      expect(clientOf('2001:db8::7')).toBe('2001:db8:0:0::/64');
      expect(clientOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
      expect(clientOf('203.0.113.7')).toBe('203.0.113.7');
    });
  });

  describe('The documented schedule', () => {
    it('should be 5 free, then 1 s doubling to 15 minutes per key and address; 20 free per address', () => {
      expect([4, 5, 6, 14, 15, 40].map((n) => delayAfter(n, SIGN_IN_THROTTLE.keyFromAddress))).toEqual([0, 1_000, 2_000, 512_000, 900_000, 900_000]);
      expect([19, 20].map((n) => delayAfter(n, SIGN_IN_THROTTLE.address))).toEqual([0, 1_000]);
    });
  });
});
