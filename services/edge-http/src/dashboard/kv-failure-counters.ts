import { isWrongRevision, type KV } from '@app/messaging';
import type { FailureCount, FailureCounters } from './sign-in-throttle.js';

const decode = (bytes: Uint8Array): FailureCount | undefined => {
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes)) as Partial<FailureCount>;
    return typeof v.failures === 'number' && typeof v.lastMs === 'number' ? { failures: v.failures, lastMs: v.lastMs } : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Failed sign-in counters in the dashboard-sign-in-failures KV bucket, shared by every edge replica and
 * written by compare-and-set (a write made on another revision is refused). The bucket's TTL forgets a
 * counter an hour after its last counted attempt.
 */
export function kvFailureCounters(kv: KV): FailureCounters {
  return {
    async read(key) {
      const entry = await kv.get(key);
      if (!entry || entry.operation !== 'PUT') return undefined;
      const count = decode(entry.value);
      return count && { count, revision: entry.revision };
    },
    async write(key, count, revision) {
      const value = new TextEncoder().encode(JSON.stringify(count));
      try {
        if (revision === undefined) await kv.create(key, value);
        else await kv.update(key, value, revision);
        return true;
      } catch (err) {
        // A compare-and-set that lost (JetStream's "wrong last sequence", also when the key was created
        // meanwhile): the caller reads again.
        if (isWrongRevision(err)) return false;
        throw err;
      }
    },
    async remove(key) {
      await kv.delete(key);
    },
  };
}
