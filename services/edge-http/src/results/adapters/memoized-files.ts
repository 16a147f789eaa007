import { LRUCache } from 'lru-cache';
import type { ResultFiles, StoredFile } from '../ports.js';

/**
 * Result files are immutable under their unguessable names, so an edge may keep the ones it reads most
 * (metadata and bytes) in memory, bounded by `maxBytes` (least recently used first out). Expiry is still
 * decided by the caller on every read from the metadata's expiry; removing a file forgets it.
 */
export function memoizedFiles(inner: ResultFiles, opts: { maxBytes: number; maxEntries?: number }): ResultFiles {
  const max = opts.maxEntries ?? 10_000;
  const infos = new LRUCache<string, StoredFile>({ max });
  const bodies = new LRUCache<string, Uint8Array>({
    max,
    maxSize: opts.maxBytes,
    // An empty body still takes a slot (the cache refuses a size of 0).
    sizeCalculation: (body) => Math.max(1, body.byteLength),
  });

  return {
    ...inner,
    known(name) {
      const file = infos.get(name);
      const body = file && bodies.get(name);
      return file && body ? { file, body } : undefined;
    },
    async info(name) {
      const known = infos.get(name);
      if (known) return known;
      const file = await inner.info(name);
      if (file) infos.set(name, file);
      return file;
    },
    async read(name) {
      const known = bodies.get(name);
      if (known) return known;
      const body = await inner.read(name);
      // A body larger than the whole bound is served but not kept (the cache would refuse it anyway).
      if (body && body.byteLength <= opts.maxBytes) bodies.set(name, body);
      return body;
    },
    async remove(name) {
      infos.delete(name);
      bodies.delete(name);
      await inner.remove(name);
    },
  };
}
