import type { Page } from 'puppeteer-core';
import { ValidationError } from '@app/errors';
import { isHeadlessShell } from '../../browser/index.js';
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
 * A page behind authentication renders its own 401 answer instead of failing the navigation. The headless
 * shell does so by itself when nobody answers the challenge; the full browser fails the navigation
 * (net::ERR_INVALID_AUTH_CREDENTIALS), so there every challenge is answered with empty credentials, which
 * pauses each request of the page to watch for one. Real credentials never answer a challenge, since any
 * origin the page loads may send one: `authorization` goes as a header to the page's own origin only
 * (requestsStep), and a proxy's credentials are added by its relay.
 */
const EMPTY_CREDENTIALS = Object.freeze({ username: '', password: '' });

/** Whether the page's browser is one that renders an unanswered challenge's 401 page (the headless shell). */
const rendersUnansweredChallenges = (page: Page): boolean => {
  const binary = page.browser().process()?.spawnfile;
  return binary !== undefined && isHeadlessShell(binary);
};

export const authenticationStep: PageSetupStep = (page) => (rendersUnansweredChallenges(page) ? undefined : page.authenticate(EMPTY_CREDENTIALS));
