import { errors } from '@app/errors';
import type { LookupFn } from './lookup.js';
import { checkTargetUrl, type CheckedTarget } from './url-policy.js';

const isLoopback = (address: string) => address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1';

/**
 * A webhook target, checked at validation and again at every delivery: https to public addresses and
 * no credentials in the URL. With `allowPrivate` (local use and tests) private addresses are allowed,
 * and plain http only to loopback. The checked addresses are returned so a delivery can be pinned to them.
 */
export async function checkWebhookUrl(
  raw: string,
  opts: { parameter: string; allowPrivate: boolean; lookup?: LookupFn },
): Promise<CheckedTarget> {
  const target = await checkTargetUrl(raw, {
    parameter: opts.parameter,
    allowPrivate: opts.allowPrivate,
    schemes: opts.allowPrivate ? ['https', 'http'] : ['https'],
    lookup: opts.lookup,
  });
  if (target.url.username || target.url.password) {
    throw errors.targetNotAllowed(opts.parameter, 'the URL must not contain credentials');
  }
  if (target.url.protocol === 'http:' && !target.addresses.every(isLoopback)) {
    throw errors.targetNotAllowed(opts.parameter, 'the URL scheme must be https');
  }
  return target;
}
