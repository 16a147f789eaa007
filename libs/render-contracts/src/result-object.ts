import { ResultObjectMeta as ResultObjectMetaMessage } from '@app/proto/render';

/**
 * The metadata every object of the render-results bucket carries (the proto message ResultObjectMeta,
 * render.proto), as the renderer and edge-http use it. It travels as one object metadata entry, `result`,
 * holding the message's JSON.
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

const ENTRY = 'result';

export function encodeResultMeta(meta: ResultObjectMeta): Record<string, string> {
  const message: ResultObjectMetaMessage = {
    account_id: meta.accountId,
    expires_unix_ms: meta.expiresUnixMs,
    content_type: meta.contentType,
    extension: meta.extension,
    kind: meta.kind,
    headers: meta.headers,
    attachment_name: meta.attachmentName,
  };
  return { [ENTRY]: JSON.stringify(ResultObjectMetaMessage.toJSON(message)) };
}

/** The metadata of an object, or undefined when it was not written with it (never served then). */
export function decodeResultMeta(raw: Record<string, string> | undefined): ResultObjectMeta | undefined {
  const json = raw?.[ENTRY];
  if (!json) return undefined;
  let m: ResultObjectMetaMessage;
  try {
    m = ResultObjectMetaMessage.fromJSON(JSON.parse(json));
  } catch {
    return undefined;
  }
  if (!m.account_id || !m.content_type || !Number.isFinite(m.expires_unix_ms) || m.expires_unix_ms <= 0) return undefined;
  return {
    accountId: m.account_id,
    expiresUnixMs: m.expires_unix_ms,
    contentType: m.content_type,
    extension: m.extension,
    kind: m.kind === 'file' ? 'file' : 'transient',
    headers: m.headers,
    attachmentName: m.attachment_name,
  };
}
