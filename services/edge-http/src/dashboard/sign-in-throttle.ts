import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { AppError, hasCode } from '@app/errors';
import type { Clock } from '../application/ports.js';

/** How failed sign-ins of one counter are slowed: `free` failures at once, then a delay doubling from `firstDelayMs` up to `maxDelayMs`. */
export interface ThrottlePolicy {
  free: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

const MINUTE_MS = 60_000;

/**
 * The two counters of a sign-in (docs/dashboard.md, "Sign-in throttling"): one access key from one client
 * address, and one client address whatever the key. The account's API rate limit is never one of them, so
 * guessing can neither spend it nor lock its owner out; the owner signing in from another address is not
 * slowed by guesses made elsewhere.
 */
export const SIGN_IN_THROTTLE = {
  keyFromAddress: { free: 5, firstDelayMs: 1_000, maxDelayMs: 15 * MINUTE_MS },
  address: { free: 20, firstDelayMs: 1_000, maxDelayMs: 15 * MINUTE_MS },
} as const satisfies Record<string, ThrottlePolicy>;

/** The wait before the next attempt a counter at `failures` allows. */
export function delayAfter(failures: number, policy: ThrottlePolicy): number {
  if (failures < policy.free) return 0;
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(failures - policy.free, 30));
}

/** A counter as stored: the failures counted and when the last was. */
export interface FailureCount {
  failures: number;
  lastMs: number;
}

/** Failure counters shared by every edge replica, written by compare-and-set. */
export interface FailureCounters {
  read(key: string): Promise<{ count: FailureCount; revision: number } | undefined>;
  /** Writes `count` if the counter is still at `revision` (undefined: absent); false when another wrote first. */
  write(key: string, count: FailureCount, revision: number | undefined): Promise<boolean>;
  remove(key: string): Promise<void>;
}

/** The address whose attempts count together: an IPv6 client is its /64 (one subscriber's whole prefix). */
export function clientOf(address: string): string {
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  if (isIP(plain) !== 6) return plain;
  const [head = '', tail = ''] = plain.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = plain.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest('hex');
const MAX_CAS_ATTEMPTS = 20;

/** What a sign-in's check came to: a wrong key keeps its counted attempt; anything else gives it back. */
export interface SignInAttempt {
  settle(outcome: 'succeeded' | unknown): Promise<void>;
}

/**
 * Failed dashboard sign-ins, throttled on their own: each attempt is counted before the keys are checked
 * (so attempts racing on several edges are counted one by one), and refused with 429 rate_limited and
 * Retry-After while a counter's delay runs. A success clears its key's counter at that address; an
 * attempt not decided (auth-quota unavailable) is given back. Counters hold hashes, never a key or address.
 */
export function signInThrottle(deps: { counters: FailureCounters; clock: Clock; policies?: typeof SIGN_IN_THROTTLE }) {
  const policies = deps.policies ?? SIGN_IN_THROTTLE;

  /** Counts one attempt unless the counter's delay runs; returns the wait left (0: counted). */
  const take = async (key: string, policy: ThrottlePolicy): Promise<number> => {
    for (let attempt = 1; ; attempt++) {
      const nowMs = deps.clock.now().getTime();
      const current = await deps.counters.read(key);
      const count = current?.count ?? { failures: 0, lastMs: 0 };
      const wait = count.lastMs + delayAfter(count.failures, policy) - nowMs;
      if (wait > 0) return wait;
      if (await deps.counters.write(key, { failures: count.failures + 1, lastMs: nowMs }, current?.revision)) return 0;
      if (attempt >= MAX_CAS_ATTEMPTS) return policy.firstDelayMs;
    }
  };

  /** Takes one counted attempt back (best effort: a counter another edge keeps changing keeps it). */
  const giveBack = async (key: string): Promise<void> => {
    for (let attempt = 1; attempt <= MAX_CAS_ATTEMPTS; attempt++) {
      const current = await deps.counters.read(key);
      if (!current || current.count.failures === 0) return;
      const count = { failures: current.count.failures - 1, lastMs: current.count.lastMs };
      if (await deps.counters.write(key, count, current.revision)) return;
    }
  };

  return {
    /** Before the keys are checked: counts the attempt, or refuses it (429 rate_limited with Retry-After). */
    async attempt(accessKey: string, address: string): Promise<SignInAttempt> {
      const client = clientOf(address);
      const keys = { address: `address.${digest(client)}`, keyFromAddress: `key.${digest(accessKey, client)}` };
      const taken: string[] = [];
      for (const name of ['address', 'keyFromAddress'] as const) {
        const wait = await take(keys[name], policies[name]);
        if (wait > 0) {
          await Promise.all(taken.map(giveBack));
          const seconds = Math.ceil(wait / 1000);
          throw new AppError('rate_limited', `Too many failed sign-ins. Try again in ${seconds} seconds.`, { retryAfterSeconds: seconds });
        }
        taken.push(keys[name]);
      }
      return {
        async settle(outcome) {
          if (outcome === 'succeeded') {
            await Promise.all([deps.counters.remove(keys.keyFromAddress), giveBack(keys.address)]);
          } else if (!hasCode(outcome, 'keys_invalid')) {
            await Promise.all(taken.map(giveBack));
          }
        },
      };
    },
  };
}

export type SignInThrottle = ReturnType<typeof signInThrottle>;
