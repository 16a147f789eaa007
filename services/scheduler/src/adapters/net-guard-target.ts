import { checkTargetUrl, checkWebhookUrl } from '@app/net-guard';
import type { TargetGuard } from '../application/ports.js';

/** The SSRF policy of the API (@app/net-guard), for the page and the webhook of a task's query. */
export function netGuardTarget(opts: { allowPrivate: boolean }): TargetGuard {
  return {
    async check(url, parameter) {
      await checkTargetUrl(url, { parameter, allowPrivate: opts.allowPrivate });
    },
    async checkWebhook(url, parameter) {
      await checkWebhookUrl(url, { parameter, allowPrivate: opts.allowPrivate });
    },
  };
}
