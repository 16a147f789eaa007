import type { Logger } from '@app/logging';
import { outsideTraces } from '@app/telemetry';

/**
 * One timer aimed at the earliest due instant of the prepared runs: `arm(at)` keeps the earlier of the
 * armed instant and `at`; when it fires, `fire` runs (and may arm the next one).
 */
export function dueInstantTimer(deps: { fire: () => Promise<void>; logger: Logger; now?: () => number }) {
  const now = deps.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let armedAt = Number.POSITIVE_INFINITY;
  let stopped = false;
  return {
    arm(at: number) {
      if (stopped || !Number.isFinite(at) || at >= armedAt) return;
      clearTimeout(timer);
      armedAt = at;
      timer = setTimeout(() => {
        armedAt = Number.POSITIVE_INFINITY;
        timer = undefined;
        // Armed inside the preparation of one run, it starts the runs of every task due: in no one's trace.
        outsideTraces(() => deps.fire()).catch((err: unknown) => deps.logger.error({ err }, 'starting prepared runs failed'));
      }, Math.max(0, at - now()));
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
