import type { Logger } from '@app/logging';
import type { SweepReport } from '../application/sweep-expired.js';

/** Runs the expiry sweep every `intervalMs` (with jitter, so replicas spread out), never two at once. */
export function expirySweeper(deps: { sweep: () => Promise<SweepReport>; intervalMs: number; logger: Logger }) {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  let stopped = false;

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(run, deps.intervalMs * (0.75 + Math.random() * 0.5));
    timer.unref();
  };
  const run = () => {
    current = deps
      .sweep()
      .then((report) => {
        if (report.files + report.cacheEntries + report.stuckRenders > 0) deps.logger.info(report, 'expired renders swept');
      })
      .catch((err: unknown) => deps.logger.warn({ err }, 'expiry sweep failed; next time'))
      .finally(schedule);
  };

  return {
    start: schedule,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
