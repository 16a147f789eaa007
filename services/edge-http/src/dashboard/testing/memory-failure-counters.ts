import type { FailureCount, FailureCounters } from '../sign-in-throttle.js';

/** Failure counters in memory, with the KV bucket's compare-and-set (each write a new revision). */
export function memoryFailureCounters(): FailureCounters & { size(): number } {
  const entries = new Map<string, { count: FailureCount; revision: number }>();
  let revision = 0;
  return {
    read: async (key) => entries.get(key),
    async write(key, count, expected) {
      if (entries.get(key)?.revision !== expected) return false;
      entries.set(key, { count, revision: ++revision });
      return true;
    },
    remove: async (key) => void entries.delete(key),
    size: () => entries.size,
  };
}
