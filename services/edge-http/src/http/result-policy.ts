import type { FastifyReply } from 'fastify';
import { contentDisposition } from './content-disposition.js';

/**
 * A render result is someone else's content served from this API's origin, the origin the dashboard's
 * session lives on. Opened in a browser (a render link, a result file), a scraped page would run its
 * scripts here and could read the dashboard's API with the owner's session. Markup a browser runs is
 * therefore served in a CSP sandbox: shown as it was scraped, but in an opaque origin, with no scripts
 * and no forms. Images, PDFs, videos and Markdown are not documents that run anything, and a sandbox
 * would stop a browser's PDF viewer, so they get nothing.
 */
const ACTIVE_DOCUMENT = /^\s*(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml)\s*(;|$)/i;

const SANDBOXED: Readonly<Record<string, string>> = Object.freeze({ 'content-security-policy': 'sandbox' });
const NONE: Readonly<Record<string, string>> = Object.freeze({});

/** The headers a result of this content type is served with beyond its type: a CSP sandbox for markup. */
export function resultPolicyHeaders(contentType: string): Readonly<Record<string, string>> {
  return ACTIVE_DOCUMENT.test(contentType) ? SANDBOXED : NONE;
}

/** What a render result is served with, whichever route serves it (a render, a cache hit, a result file). */
export interface ServedResult {
  contentType: string;
  extension: string;
  /** The render's own headers (metadata). */
  headers: Readonly<Record<string, string>>;
}

/** A result's headers: its type, Content-Disposition, the sandbox for markup, its own headers. */
export function resultHeaders(result: ServedResult, attachmentName: string | undefined): Record<string, string> {
  return {
    'content-type': result.contentType,
    'content-disposition': contentDisposition(attachmentName, result.extension),
    ...resultPolicyHeaders(result.contentType),
    ...result.headers,
  };
}

/** Sets a result's headers on `reply` (`resultHeaders`). */
export function setResultHeaders(reply: FastifyReply, result: ServedResult, attachmentName: string | undefined): FastifyReply {
  return reply.headers(resultHeaders(result, attachmentName));
}
