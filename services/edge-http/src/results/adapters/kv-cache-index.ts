import type { KV } from '@app/messaging';
import type { CacheEntry, CacheIndex, RenderClaim } from '../ports.js';

/** What a key of the bucket holds: a cache entry, or the claim of a render in flight. */
type Slot = { entry: CacheEntry } | { claim: RenderClaim } | undefined;

const decode = (bytes: Uint8Array): Slot => {
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes)) as Partial<CacheEntry & { claimedUntilUnixMs: number; claimToken: string }>;
    if (typeof v.accountId !== 'string') return undefined;
    if (typeof v.objectName === 'string' && typeof v.expiresUnixMs === 'number') return { entry: v as CacheEntry };
    if (typeof v.claimedUntilUnixMs === 'number' && typeof v.claimToken === 'string') {
      return { claim: { accountId: v.accountId, untilUnixMs: v.claimedUntilUnixMs, token: v.claimToken } };
    }
    return undefined;
  } catch {
    return undefined;
  }
};
const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/**
 * The cache index in the render-cache KV bucket (key: the hex cache key). A key holds the entry, or,
 * while the render is in flight, its claim: created only if the key is absent (or by compare-and-set
 * over an expired entry or claim), so one render of a key runs at a time across every edge.
 */
export function kvCacheIndex(kv: KV): CacheIndex {
  const read = async (key: string) => {
    const found = await kv.get(key);
    return found && found.operation === 'PUT' ? { slot: decode(found.value), revision: found.revision } : undefined;
  };
  const get = async (key: string) => {
    const current = await read(key);
    return current?.slot && 'entry' in current.slot ? current.slot.entry : undefined;
  };
  return {
    get,
    async put(key, entry) {
      await kv.put(key, encode(entry));
    },
    async claim(key, claim, nowMs) {
      const value = encode({ accountId: claim.accountId, claimedUntilUnixMs: claim.untilUnixMs, claimToken: claim.token });
      try {
        await kv.create(key, value);
        return true;
      } catch {
        // The key exists: it may hold something that no longer counts.
      }
      const current = await read(key);
      if (!current) return false;
      const { slot } = current;
      const live = slot && ('entry' in slot ? slot.entry.expiresUnixMs > nowMs : slot.claim.untilUnixMs > nowMs);
      if (live) return false;
      try {
        await kv.update(key, value, current.revision);
        return true;
      } catch {
        return false; // another edge took it first
      }
    },
    async unclaim(key, claim) {
      const current = await read(key);
      if (!current?.slot || !('claim' in current.slot) || current.slot.claim.token !== claim.token) return;
      await kv.delete(key, { previousSeq: current.revision }).catch(() => undefined);
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
