import { checkTargetUrl } from '@app/net-guard';
import type { TargetGuard } from '../application/ports.js';

/** Refuses URLs whose scheme is not http(s) or whose host resolves to a private or loopback address. */
export function netGuardTarget(opts: { allowPrivate: boolean }): TargetGuard {
  return {
    async check(url, parameter) {
      await checkTargetUrl(url, { parameter, allowPrivate: opts.allowPrivate });
    },
  };
}
