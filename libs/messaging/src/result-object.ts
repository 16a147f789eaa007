/**
 * The metadata every object of the render-results bucket carries, written by the renderer and read by
 * edge-http (files, cache, sweeper). nats-server 2.9 has no per-message TTL, so each object's expiry
 * lives here and is enforced on read and by the sweeper.
 */
export interface ResultObjectMeta {
  accountId: string;
  /** Unix milliseconds after which the object is gone for every reader. */
  expiresUnixMs: number;
  contentType: string;
  /** File extension of the result (jpg, png, webp, pdf, html, md). */
  extension: string;
  /** `file`: may be served by its (unguessable) name; `transient`: a sync result, never served as a file. */
  kind: 'file' | 'transient';
  /** X-Service-Metadata-* headers of the render. */
  headers: Record<string, string>;
  attachmentName?: string | undefined;
}

export function encodeResultMeta(meta: ResultObjectMeta): Record<string, string> {
  const out: Record<string, string> = {
    account_id: meta.accountId,
    expires_unix_ms: String(meta.expiresUnixMs),
    content_type: meta.contentType,
    extension: meta.extension,
    kind: meta.kind,
    headers: JSON.stringify(meta.headers),
  };
  if (meta.attachmentName) out.attachment_name = meta.attachmentName;
  return out;
}

/** The metadata of an object, or undefined when it was not written with it (never served then). */
export function decodeResultMeta(raw: Record<string, string> | undefined): ResultObjectMeta | undefined {
  if (!raw?.account_id || !raw.expires_unix_ms || !raw.content_type) return undefined;
  const expiresUnixMs = Number(raw.expires_unix_ms);
  if (!Number.isFinite(expiresUnixMs)) return undefined;
  let headers: Record<string, string> = {};
  try {
    const parsed: unknown = JSON.parse(raw.headers ?? '{}');
    if (parsed && typeof parsed === 'object') headers = parsed as Record<string, string>;
  } catch {
    headers = {};
  }
  return {
    accountId: raw.account_id,
    expiresUnixMs,
    contentType: raw.content_type,
    extension: raw.extension ?? '',
    kind: raw.kind === 'file' ? 'file' : 'transient',
    headers,
    attachmentName: raw.attachment_name,
  };
}
