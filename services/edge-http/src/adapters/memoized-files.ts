import type { ResultFiles, StoredFile } from '../application/async-ports.js';

/**
 * Result files are immutable under their unguessable names, so an edge may keep the ones it reads most
 * (metadata and bytes) in memory, bounded by `maxBytes` (least recently used first out). Expiry is still
 * decided by the caller on every read from the metadata's expiry; removing a file forgets it.
 */
export function memoizedFiles(inner: ResultFiles, opts: { maxBytes: number; maxEntries?: number }): ResultFiles {
  const infos = new Map<string, StoredFile>();
  const bodies = new Map<string, Uint8Array>();
  let bytes = 0;
  const maxEntries = opts.maxEntries ?? 10_000;

  const touch = <V>(map: Map<string, V>, key: string, value: V) => {
    map.delete(key);
    map.set(key, value);
  };
  const evict = () => {
    while ((bytes > opts.maxBytes || bodies.size > maxEntries) && bodies.size > 0) {
      const [oldest, body] = bodies.entries().next().value as [string, Uint8Array];
      bodies.delete(oldest);
      bytes -= body.byteLength;
    }
    while (infos.size > maxEntries) infos.delete(infos.keys().next().value as string);
  };
  const forget = (name: string) => {
    infos.delete(name);
    const body = bodies.get(name);
    if (body) bytes -= body.byteLength;
    bodies.delete(name);
  };

  return {
    ...inner,
    async info(name) {
      const known = infos.get(name);
      if (known) {
        touch(infos, name, known);
        return known;
      }
      const file = await inner.info(name);
      if (file) {
        infos.set(name, file);
        evict();
      }
      return file;
    },
    async read(name) {
      const known = bodies.get(name);
      if (known) {
        touch(bodies, name, known);
        return known;
      }
      const body = await inner.read(name);
      if (body && body.byteLength <= opts.maxBytes) {
        bodies.set(name, body);
        bytes += body.byteLength;
        evict();
      }
      return body;
    },
    async remove(name) {
      forget(name);
      await inner.remove(name);
    },
  };
}
