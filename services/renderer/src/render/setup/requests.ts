import type { HTTPRequest } from 'puppeteer-core';
import type { RenderParams } from '@app/proto/render';
import { parseHeaderList } from './headers.js';
import { annoyanceMatcher, blockedCategories } from './annoyance-blocklist.js';
import type { PageSetupStep } from './step.js';

/** Schemes a page may load; everything else (file:, ftp:, chrome:, …) is refused in the browser too. */
const ALLOWED_SCHEMES = new Set(['http:', 'https:', 'data:', 'blob:']);

export type RequestDecision = { action: 'abort'; reason: 'accessdenied' | 'blockedbyclient' } | { action: 'continue'; headers?: Record<string, string> };

export interface RequestInfo {
  url: string;
  resourceType: string;
  /** The page's own top-level navigation (never blocked by resource type or annoyance rules). */
  isMainDocument: boolean;
  headers: Record<string, string>;
}

/**
 * The decision for one request the page makes: scheme guard, block_ressources, block_annoyance,
 * then the authorization header for the page's own origin. Pure, so it is tested without a browser.
 */
export function requestPolicy(params: RenderParams): (request: RequestInfo) => RequestDecision {
  const blockedTypes = new Set(params.block_ressources);
  const annoying = annoyanceMatcher(params.block_annoyance, params.url);
  const authOrigin = params.authorization && params.url ? new URL(params.url).origin : undefined;
  const extraHeaders = authOrigin ? parseHeaderList(params.headers) : {};

  return (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { action: 'abort', reason: 'accessdenied' };
    }
    if (!ALLOWED_SCHEMES.has(url.protocol)) return { action: 'abort', reason: 'accessdenied' };
    if (!request.isMainDocument) {
      if (blockedTypes.has(request.resourceType)) return { action: 'abort', reason: 'blockedbyclient' };
      if (annoying?.(request.url)) return { action: 'abort', reason: 'blockedbyclient' };
    }
    if (authOrigin && url.origin === authOrigin) {
      return { action: 'continue', headers: { ...request.headers, ...extraHeaders, authorization: `Basic ${params.authorization}` } };
    }
    return { action: 'continue' };
  };
}

/**
 * Whether the render's parameters decide anything about single requests: block_ressources, block_annoyance
 * (other than none) or authorization. Without them requestPolicy would continue every http(s), data or blob
 * request and refuse only other schemes, which Chromium itself refuses to a web page (file:, chrome:,
 * view-source:, ftp: are never loaded by a page or its frames, scripts or images; tests check file: in
 * a frame, a fetch and an XHR).
 */
export function requestsNeedDeciding(params: RenderParams): boolean {
  return params.block_ressources.length > 0 || blockedCategories(params.block_annoyance).size > 0 || !!params.authorization;
}

/**
 * When the parameters ask for it (requestsNeedDeciding), every request of the page is paused and decided by
 * requestPolicy (service workers bypassed so none escapes). Otherwise the page's requests are not paused:
 * pausing each costs the browser and this process two messages a request, a few percent of a small
 * page's render. Either way every request the page makes goes through the egress proxy, which checks
 * and pins its address.
 */
export const requestsStep: PageSetupStep = (page, params) => {
  if (!requestsNeedDeciding(params)) return undefined;
  const decide = requestPolicy(params);
  const onRequest = (request: HTTPRequest): void => {
    if (request.isInterceptResolutionHandled()) return;
    let decision: RequestDecision;
    try {
      decision = decide({
        url: request.url(),
        resourceType: request.resourceType(),
        isMainDocument: request.isNavigationRequest() && request.frame() === page.mainFrame(),
        headers: request.headers(),
      });
    } catch {
      decision = { action: 'abort', reason: 'accessdenied' };
    }
    const settled =
      decision.action === 'abort'
        ? request.abort(decision.reason)
        : request.continue(decision.headers ? { headers: decision.headers } : undefined);
    settled.catch(() => undefined); // the page may be gone already
  };
  page.on('request', onRequest);
  return Promise.all([page.setRequestInterception(true), page.setBypassServiceWorker(true)]);
};
