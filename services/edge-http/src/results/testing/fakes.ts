import type { RenderFinished, RenderJob } from '@app/proto/render';
import type { CacheEntry, CacheIndex, RenderClaim, JobPublisher, RenderStatusStore, ResultFiles, StoredFile } from '../ports.js';
import type { RenderRecord } from '../render-record.js';

/** In-memory fakes of the async ports, for unit tests. */
export function fakeStatuses(): RenderStatusStore & { records: Map<string, RenderRecord> } {
  const records = new Map<string, RenderRecord>();
  return {
    records,
    create: async (r) => {
      if (records.has(r.id)) throw new Error('exists');
      records.set(r.id, r);
    },
    get: async (id) => records.get(id),
    update: async (id, change) => {
      const r = records.get(id);
      const next = r && change(r);
      if (next) records.set(id, next);
    },
    remove: async (id) => void records.delete(id),
    list: async function* () {
      yield* records.values();
    },
    webhookState: async () => undefined,
  };
}

export function fakeJobs(): JobPublisher & { submitted: RenderJob[]; announced: RenderFinished[]; announcedKinds: string[] } {
  const submitted: RenderJob[] = [];
  const announced: RenderFinished[] = [];
  const announcedKinds: string[] = [];
  return {
    submitted,
    announced,
    announcedKinds,
    submit: async (job) => void submitted.push(job),
    announce: async (event, kind) => {
      announced.push(event);
      announcedKinds.push(kind);
    },
  };
}

export function fakeIndex(): CacheIndex & { entries: Map<string, CacheEntry>; claims: Map<string, RenderClaim> } {
  const entries = new Map<string, CacheEntry>();
  const claims = new Map<string, RenderClaim>();
  return {
    entries,
    claims,
    get: async (k) => entries.get(k),
    put: async (k, e) => {
      claims.delete(k);
      entries.set(k, e);
    },
    claim: async (k, c, now) => {
      if ((entries.get(k)?.expiresUnixMs ?? 0) > now || (claims.get(k)?.untilUnixMs ?? 0) > now) return false;
      entries.delete(k);
      claims.set(k, c);
      return true;
    },
    unclaim: async (k, c) => {
      if (claims.get(k)?.token === c.token) claims.delete(k);
    },
    remove: async (k) => void entries.delete(k),
    list: async function* () {
      for (const [key, entry] of entries) yield { key, entry };
    },
  };
}

export function fakeFiles(): ResultFiles & { files: Map<string, { file: StoredFile; body: Uint8Array; mtimeMs: number }> } {
  const files = new Map<string, { file: StoredFile; body: Uint8Array; mtimeMs: number }>();
  return {
    files,
    info: async (n) => files.get(n)?.file,
    read: async (n) => files.get(n)?.body,
    stream: async (n) => {
      const f = files.get(n);
      return f && new Blob([f.body]).stream();
    },
    list: async () => [...files.entries()].map(([objectName, f]) => ({ objectName, file: f.file, mtimeMs: f.mtimeMs })),
    remove: async (n) => void files.delete(n),
  };
}

export const storedFile = (over: Partial<StoredFile> = {}): StoredFile => ({
  objectName: 'F'.repeat(43),
  accountId: 'acc_1',
  expiresUnixMs: Date.now() + 60_000,
  contentType: 'image/png',
  extension: 'png',
  headers: {},
  kind: 'file',
  size: 3,
  ...over,
});
