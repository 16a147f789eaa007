import type { ObjectStore, WholeObjectRead } from '@app/messaging';
import { decodeResultMeta, encodeResultMeta } from '@app/render-contracts';
import type { Clock, ResultStore } from '../application/ports.js';

/**
 * Results in the render-results object store. Files written here carry the metadata every result file
 * carries (owner, expiry, type), so the edge serves them by name and its sweep removes them when they expire.
 */
export function objectStoreResults(store: ObjectStore, readWhole: WholeObjectRead, clock: Clock): ResultStore {
  return {
    async read(name) {
      const info = await store.info(name);
      if (!info || info.deleted) return undefined;
      const meta = decodeResultMeta(info.metadata);
      if (!meta || meta.expiresUnixMs <= clock.now().getTime()) return undefined;
      const body = await readWhole(info);
      return body ? { body, extension: meta.extension, contentType: meta.contentType } : undefined;
    },
    async write(name, body, meta) {
      const metadata = encodeResultMeta({
        accountId: meta.accountId,
        expiresUnixMs: clock.now().getTime() + meta.ttlMs,
        contentType: meta.contentType,
        extension: meta.extension,
        kind: 'file',
        headers: {},
      });
      await store.putBlob({ name, metadata }, body);
    },
  };
}
