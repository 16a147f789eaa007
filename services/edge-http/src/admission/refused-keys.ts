import { createHash } from 'node:crypto';
import { errors, hasCode } from '@app/errors';
import type { AuthQuota } from '../application/ports.js';

/**
 * Remembers access keys auth-quota refused, for a short time, so floods of bad keys are answered at
 * the edge without a call. Only refusals are cached: a valid key is always admitted by auth-quota, so a
 * rotated key fails at once everywhere. `forget()` runs when any account's keys change (a new key may
 * have been refused before it existed).
 */
export function refusedKeysCache<A extends AuthQuota>(inner: A, opts: { ttlMs: number; maxEntries: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  const refused = new Map<string, number>();
  // Bumped by forget(): a refusal that was in flight across a key change is not remembered.
  let generation = 0;
  const digest = (key: string) => createHash('sha256').update(key).digest('base64');

  const admitted: A = {
    ...inner,
    async admit(request) {
      // Admitted by its account (a dashboard session): no key to remember.
      if (request.accountId !== undefined) return inner.admit(request);
      const id = digest(request.accessKey);
      const until = refused.get(id);
      if (until !== undefined) {
        if (until > now()) throw errors.accessKeyInvalid();
        refused.delete(id);
      }
      const asked = generation;
      try {
        return await inner.admit(request);
      } catch (err) {
        if (hasCode(err, 'access_key_invalid') && asked === generation) {
          if (refused.size >= opts.maxEntries) refused.clear();
          refused.set(id, now() + opts.ttlMs);
        }
        throw err;
      }
    },
  };
  const forget = () => {
    generation += 1;
    refused.clear();
  };
  return { authQuota: admitted, forget, size: () => refused.size };
}
