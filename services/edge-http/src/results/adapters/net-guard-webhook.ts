import { checkWebhookUrl } from '@app/net-guard';
import type { WebhookGuard } from '../ports.js';

/** webhook_url at validation, with the policy every webhook target is held to (@app/net-guard). */
export function netGuardWebhook(opts: { allowPrivate: boolean }): WebhookGuard {
  return {
    async check(url) {
      await checkWebhookUrl(url, { parameter: 'webhook_url', allowPrivate: opts.allowPrivate });
    },
  };
}
