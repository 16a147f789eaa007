import { errors } from '@app/errors';
import { checkTargetUrl } from '@app/net-guard';
import type { TargetGuard } from '../application/ports.js';

const isLoopback = (address: string) => address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1';

/**
 * The SSRF policy of the API. Pages: http(s) only, no private or loopback address unless allowed.
 * Webhooks (as the edge checks them): https to public addresses; with allowPrivate, private addresses
 * too and plain http only to loopback; never credentials in the URL.
 */
export function netGuardTarget(opts: { allowPrivate: boolean }): TargetGuard {
  return {
    async check(url, parameter) {
      await checkTargetUrl(url, { parameter, allowPrivate: opts.allowPrivate });
    },
    async checkWebhook(url, parameter) {
      const schemes = opts.allowPrivate ? ['https', 'http'] : ['https'];
      const { url: parsed, addresses } = await checkTargetUrl(url, { parameter, allowPrivate: opts.allowPrivate, schemes });
      if (parsed.username || parsed.password) throw errors.targetNotAllowed(parameter, 'the URL must not contain credentials');
      if (parsed.protocol === 'http:' && !addresses.every(isLoopback)) throw errors.targetNotAllowed(parameter, 'the URL scheme must be https');
    },
  };
}
