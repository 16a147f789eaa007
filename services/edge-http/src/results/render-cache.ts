import type { CacheIndex, RenderClaim, ResultFiles, StoredFile } from './ports.js';

export interface CacheHit {
  file: StoredFile;
  body: Uint8Array;
}

/**
 * The render cache: an index entry (cache key -> file) whose file still exists, belongs to the same
 * account and has not expired. Expiry is enforced here on every read, whatever the sweeper did yet.
 */
export function renderCache(deps: { index: CacheIndex; files: ResultFiles }) {
  const { index, files } = deps;
  const live = async (accountId: string, key: string, nowMs: number): Promise<StoredFile | undefined> => {
    const entry = await index.get(key);
    if (!entry || entry.accountId !== accountId || entry.expiresUnixMs <= nowMs) return undefined;
    const file = await files.info(entry.objectName);
    if (!file || file.kind !== 'file' || file.accountId !== accountId || file.expiresUnixMs <= nowMs) return undefined;
    return file;
  };
  return {
    /** A hit this process can answer from memory alone, at once (no call); undefined otherwise. */
    known(accountId: string, key: string, nowMs: number): CacheHit | undefined {
      const entry = index.known?.(key);
      if (!entry || entry.accountId !== accountId || entry.expiresUnixMs <= nowMs) return undefined;
      const known = files.known?.(entry.objectName);
      const file = known?.file;
      if (!file || file.kind !== 'file' || file.accountId !== accountId || file.expiresUnixMs <= nowMs) return undefined;
      return { file, body: known.body };
    },
    /** The file of a live entry, without reading it (async hits). */
    find: live,
    /** The file and its bytes (sync hits). */
    async read(accountId: string, key: string, nowMs: number): Promise<CacheHit | undefined> {
      const file = await live(accountId, key, nowMs);
      if (!file) return undefined;
      const body = await files.read(file.objectName);
      return body ? { file, body } : undefined;
    },
    /** Writes the entry of a finished render (over its claim). */
    remember: (key: string, accountId: string, objectName: string, expiresUnixMs: number) =>
      index.put(key, { accountId, objectName, expiresUnixMs }),
    /** One render of the key at a time, across edges (see CacheIndex.claim). */
    claim: (key: string, claim: RenderClaim, nowMs: number) => index.claim(key, claim, nowMs),
    unclaim: (key: string, claim: RenderClaim) => index.unclaim(key, claim),
  };
}

export type RenderCache = ReturnType<typeof renderCache>;
