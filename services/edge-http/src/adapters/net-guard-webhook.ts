import { errors } from '@app/errors';
import { checkTargetUrl } from '@app/net-guard';
import type { WebhookGuard } from '../application/async-ports.js';

const isLoopback = (address: string) => address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1';

/**
 * webhook_url at validation: https to public addresses only. With allowPrivate (local use and tests)
 * private addresses are allowed, and plain http only to loopback.
 */
export function netGuardWebhook(opts: { allowPrivate: boolean }): WebhookGuard {
  return {
    async check(url) {
      const schemes = opts.allowPrivate ? ['https', 'http'] : ['https'];
      const { url: parsed, addresses } = await checkTargetUrl(url, { parameter: 'webhook_url', allowPrivate: opts.allowPrivate, schemes });
      if (parsed.username || parsed.password) throw errors.targetNotAllowed('webhook_url', 'the URL must not contain credentials');
      if (parsed.protocol === 'http:' && !addresses.every(isLoopback)) {
        throw errors.targetNotAllowed('webhook_url', 'the URL scheme must be https');
      }
    },
  };
}
