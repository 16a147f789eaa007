import type { KV } from '@app/messaging';
import type { CacheEntry, CacheIndex } from '../application/async-ports.js';

const decode = (bytes: Uint8Array): CacheEntry | undefined => {
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes)) as Partial<CacheEntry>;
    return typeof v.accountId === 'string' && typeof v.objectName === 'string' && typeof v.expiresUnixMs === 'number'
      ? (v as CacheEntry)
      : undefined;
  } catch {
    return undefined;
  }
};

/** The cache index in the render-cache KV bucket (key: the hex cache key). */
export function kvCacheIndex(kv: KV): CacheIndex {
  const get = async (key: string) => {
    const entry = await kv.get(key);
    return entry && entry.operation === 'PUT' ? decode(entry.value) : undefined;
  };
  return {
    get,
    async put(key, entry) {
      await kv.put(key, new TextEncoder().encode(JSON.stringify(entry)));
    },
    async remove(key) {
      await kv.delete(key);
    },
    async *list() {
      const keys: string[] = [];
      for await (const key of await kv.keys()) keys.push(key);
      for (const key of keys) {
        const entry = await get(key);
        if (entry) yield { key, entry };
      }
    },
  };
}
