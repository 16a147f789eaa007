import { ValidationError } from '@app/errors';
import type { PageSetupStep } from './step.js';

/** `name=value` entries (already split and checked by @app/render-params). */
export function parseCookies(entries: readonly string[]): Array<{ name: string; value: string }> {
  return entries.flatMap((entry) => {
    const eq = entry.indexOf('=');
    return eq > 0 ? [{ name: entry.slice(0, eq).trim(), value: entry.slice(eq + 1).trim() }] : [];
  });
}

/** cookies: set for the page's address before it is requested. */
export const cookiesStep: PageSetupStep = (page, params) => {
  if (params.cookies.length === 0 || !params.url) return undefined;
  const url = params.url;
  return page.setCookie(...parseCookies(params.cookies).map((c) => ({ ...c, url }))).catch(() => {
    throw new ValidationError([{ parameter: 'cookies', message: 'cookies could not be set for this url' }]);
  });
};
