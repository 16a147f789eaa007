import { ValidationError } from '@app/errors';
import type { PageSetupStep, RenderEnv } from './step.js';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `name:value` entries (one per entry, or several separated by semicolons). */
export function parseHeaderList(entries: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of entries.flatMap((entry) => entry.split(/;(?=[^;:]*:|\s*$)/))) {
    if (pair.trim() === '') continue;
    const colon = pair.indexOf(':');
    const name = (colon < 0 ? pair : pair.slice(0, colon)).trim();
    const value = colon < 0 ? '' : pair.slice(colon + 1).trim();
    if (colon < 0 || !HEADER_NAME.test(name) || /[\r\n\0]/.test(value)) {
      throw new ValidationError([{ parameter: 'headers', message: `headers: "${truncate(pair.trim())}" is not a valid name:value header` }]);
    }
    headers[name] = value;
  }
  return headers;
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** headers: sent with every request of the page. */
export const extraHeadersStep: PageSetupStep = (page, params) => {
  if (params.headers.length === 0) return undefined;
  const headers = parseHeaderList(params.headers);
  return Object.keys(headers).length > 0 ? page.setExtraHTTPHeaders(headers) : undefined;
};

/**
 * Answers to authentication challenges: the render's proxy credentials (407), else the `authorization`
 * credentials (a 401 the proactive header did not satisfy, e.g. Digest), else empty ones, so that a page
 * behind authentication is rendered with its own 401 answer instead of failing the navigation.
 */
export function challengeCredentials(params: { authorization?: string | undefined }, env: RenderEnv): { username: string; password: string } {
  if (env.proxyCredentials) return env.proxyCredentials;
  if (params.authorization) {
    const decoded = Buffer.from(params.authorization, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return { username: '', password: '' };
}

export const authenticationStep: PageSetupStep = (page, params, env) => page.authenticate(challengeCredentials(params, env));
