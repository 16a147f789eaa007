import { ValidationError } from '@app/errors';
import type { PageSetupStep } from './step.js';

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
 * Every authentication challenge is answered with empty credentials, so a page behind authentication
 * renders its own 401 answer instead of failing the navigation. Real credentials never answer a
 * challenge, since any origin the page loads may send one: `authorization` goes as a header to the
 * page's own origin only (requestsStep), and a proxy's credentials are added by its relay.
 */
const EMPTY_CREDENTIALS = Object.freeze({ username: '', password: '' });

export const authenticationStep: PageSetupStep = (page) => page.authenticate(EMPTY_CREDENTIALS);
