import { createHash } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { ObjectInfo, ObjectStore } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';

/** The object store's digest of an object's bytes: `SHA-256=` and the hash in padded base64url. */
const DIGEST_PREFIX = 'SHA-256=';

const digestMatches = (digest: string, data: Uint8Array): boolean =>
  digest.startsWith(DIGEST_PREFIX) && Buffer.from(digest.slice(DIGEST_PREFIX.length), 'base64url').equals(createHash('sha256').update(data).digest());

export type WholeObjectRead = (info: ObjectInfo) => Promise<Uint8Array | null>;

/**
 * Reads whole objects of `bucket` whose info was just read. The object store's own read (`getBlob`) reads
 * the info again, then creates a push consumer with flow control for the chunks and removes it after: four
 * round trips and a consumer made and dropped in the server for each read. An object of one chunk (up to
 * the bucket's chunk size, 128 KiB: most results) is read here with one direct get of its chunk subject and
 * its digest checked in native code, as the library checks it in JavaScript. Larger objects, and a chunk
 * that is not there (the object replaced meanwhile, or a replica that has not stored it yet), take the
 * library's read. Null: the object is gone.
 */
export function wholeObjectReader(nc: NatsConnection, store: ObjectStore, bucket: string): WholeObjectRead {
  let manager: Promise<JetStreamManager> | undefined;
  // The object store's layout (ADR-20): the bucket's stream, and a subject per object's chunks.
  const stream = `OBJ_${bucket}`;
  return async (info) => {
    if (info.deleted) return null;
    if (info.size === 0) return new Uint8Array();
    if (info.chunks === 1) {
      manager ??= jetstreamManager(nc, { checkAPI: false });
      const chunk = await (await manager).direct.getMessage(stream, { last_by_subj: `$O.${bucket}.C.${info.nuid}` });
      if (chunk) {
        if (!digestMatches(info.digest, chunk.data)) throw new Error(`object ${info.name} of ${bucket} is corrupt: its digest does not match`);
        return chunk.data;
      }
    }
    return store.getBlob(info.name);
  };
}
