import { whileBusUnavailable, type ObjectInfo, type ObjectStore, type WholeObjectRead } from '@app/messaging';
import { decodeResultMeta } from '@app/render-contracts';
import type { ResultFiles, StoredFile } from '../ports.js';

function toFile(info: ObjectInfo): StoredFile | undefined {
  const meta = decodeResultMeta(info.metadata);
  return meta && { ...meta, objectName: info.name, size: info.size };
}

/**
 * Result files in the render-results object store, with the metadata the renderer wrote. A whole read (a
 * sync render's result, which its caller waits for and is charged for) is tried again for up to
 * `readRetryMs` while the bucket elects its leader, rather than failing a render that succeeded. Whole reads
 * go through `readWhole` (one direct get for a file of one chunk, no consumer).
 */
export function objectStoreFiles(store: ObjectStore, readWhole: WholeObjectRead, readRetryMs = 10_000): ResultFiles {
  return {
    async info(name) {
      const info = await store.info(name);
      return info && !info.deleted ? toFile(info) : undefined;
    },
    async stream(name) {
      const result = await store.get(name);
      return result?.data ?? undefined;
    },
    async read(name) {
      const whole = async () => {
        const info = await store.info(name);
        return info ? readWhole(info) : null;
      };
      return (await whileBusUnavailable(whole, readRetryMs)) ?? undefined;
    },
    async list() {
      const all = await store.list();
      return all
        .filter((info) => !info.deleted)
        .map((info) => ({ objectName: info.name, file: toFile(info), mtimeMs: Date.parse(info.mtime) || 0 }));
    },
    async remove(name) {
      await store.delete(name);
    },
  };
}
