import { LRUCache } from 'lru-cache';
import type { CacheEntry, CacheIndex } from '../ports.js';

/**
 * A live cache entry never changes before it expires (files and entries are removed only once expired),
 * so an edge may keep the entries it has read or written until their expiry and answer hits without
 * asking the bucket. Absent keys are not remembered: an entry another edge writes is found on the next
 * read. Bounded by `maxEntries`, least recently used first out.
 */
export function memoizedCacheIndex(inner: CacheIndex, opts: { maxEntries: number; now?: () => number }): CacheIndex {
  const now = opts.now ?? Date.now;
  const entries = new LRUCache<string, CacheEntry>({ max: opts.maxEntries });

  return {
    ...inner,
    known(key) {
      const known = entries.get(key);
      return known && known.expiresUnixMs > now() ? known : undefined;
    },
    async get(key) {
      const known = entries.get(key);
      if (known && known.expiresUnixMs > now()) return known;
      entries.delete(key);
      const entry = await inner.get(key);
      if (entry && entry.expiresUnixMs > now()) entries.set(key, entry);
      return entry;
    },
    async put(key, entry) {
      await inner.put(key, entry);
      entries.set(key, entry);
    },
    async remove(key) {
      entries.delete(key);
      await inner.remove(key);
    },
  };
}
