import type { WebhookState } from '@app/render-contracts';
import type { RenderFinished, RenderJob } from '@app/proto/render';
import type { RenderRecord } from './render-record.js';

/** Publishes a render job without waiting (async renders), and finished events the edge decides itself. */
export interface JobPublisher {
  submit(job: RenderJob): Promise<void>;
  /**
   * The edge's own conclusion of an async render no renderer finished: `cache-hit` (answered from the
   * cache) or `abandoned` (the watchdog gave up on it). Its payload is a finished render's, so its
   * webhook and its settlement go out the same way.
   */
  announce(event: RenderFinished, kind: 'cache-hit' | 'abandoned'): Promise<void>;
}

/** Status of asynchronous renders, shared by every edge replica (JetStream KV). */
export interface RenderStatusStore {
  create(record: RenderRecord): Promise<void>;
  get(id: string): Promise<RenderRecord | undefined>;
  /** Compare-and-set: `change` returns the new record, or undefined for no change. Retried on conflict. */
  update(id: string, change: (current: RenderRecord) => RenderRecord | undefined): Promise<void>;
  remove(id: string): Promise<void>;
  list(): AsyncIterable<RenderRecord>;
  webhookState(id: string): Promise<WebhookState | undefined>;
}

/** A stored result file with its metadata. */
export interface StoredFile {
  objectName: string;
  accountId: string;
  expiresUnixMs: number;
  contentType: string;
  extension: string;
  headers: Record<string, string>;
  attachmentName?: string | undefined;
  kind: 'file' | 'transient';
  size: number;
}

/** Result files in the object store (read side, and the sweeper's). */
export interface ResultFiles {
  info(objectName: string): Promise<StoredFile | undefined>;
  stream(objectName: string): Promise<ReadableStream<Uint8Array> | undefined>;
  read(objectName: string): Promise<Uint8Array | undefined>;
  /** What this process holds of the file in memory already, without a call (a memoizing adapter). */
  known?(objectName: string): { file: StoredFile; body: Uint8Array } | undefined;
  /** Every object: its name, metadata (when written with it) and write time. */
  list(): Promise<{ objectName: string; file: StoredFile | undefined; mtimeMs: number }[]>;
  remove(objectName: string): Promise<void>;
}

export interface CacheEntry {
  accountId: string;
  objectName: string;
  expiresUnixMs: number;
}

/** A render of a cache key in flight on some edge: the others wait for its entry until `untilUnixMs`. */
export interface RenderClaim {
  accountId: string;
  untilUnixMs: number;
  /** Tells this claim from a later one of the same key (only its owner drops it). */
  token: string;
}

/** The render cache index: cache key -> result file. */
export interface CacheIndex {
  get(key: string): Promise<CacheEntry | undefined>;
  /** The live entry this process holds in memory already, without a call (a memoizing adapter). */
  known?(key: string): CacheEntry | undefined;
  /** Writes the entry (over this edge's claim of the key, if any). */
  put(key: string, entry: CacheEntry): Promise<void>;
  /**
   * Claims the key for one render, across edges: true when nothing live holds it (no entry, no claim, or
   * only expired ones); false when a live entry or another render's live claim does.
   */
  claim(key: string, claim: RenderClaim, nowMs: number): Promise<boolean>;
  /** Drops this claim, its render having failed (an entry or another claim written meanwhile stays). */
  unclaim(key: string, claim: RenderClaim): Promise<void>;
  remove(key: string): Promise<void>;
  list(): AsyncIterable<{ key: string; entry: CacheEntry }>;
}

/** SSRF check of a webhook_url at validation: https to public addresses only. */
export interface WebhookGuard {
  check(url: string): Promise<void>;
}

/** The ids of an account's most recent asynchronous renders, newest first (bounded). */
export interface RecentRenders {
  add(accountId: string, renderId: string): Promise<void>;
  list(accountId: string): Promise<string[]>;
}
