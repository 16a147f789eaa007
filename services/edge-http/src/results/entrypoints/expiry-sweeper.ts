import type { Logger } from '@app/logging';
import type { KvLease } from '@app/messaging';
import type { SweepReport } from '../sweep-expired.js';

/**
 * Runs the expiry sweep every `intervalMs` (with jitter), on one edge replica at a time: each run first
 * takes or renews `lease` (held for two intervals), so the replica that swept last keeps sweeping and
 * another takes over once it is gone. Never two sweeps at once in one replica either.
 */
export function expirySweeper(deps: { sweep: () => Promise<SweepReport>; lease: KvLease; intervalMs: number; logger: Logger }) {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  let stopped = false;

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(run, deps.intervalMs * (0.75 + Math.random() * 0.5));
    timer.unref();
  };
  const sweepIfHeld = async () => {
    if (!(await deps.lease.acquire())) return;
    const report = await deps.sweep();
    if (report.files + report.cacheEntries + report.stuckRenders > 0) deps.logger.info(report, 'expired renders swept');
  };
  const run = () => {
    current = sweepIfHeld()
      .catch((err: unknown) => deps.logger.warn({ err }, 'expiry sweep failed; next time'))
      .finally(schedule);
  };

  return {
    start: schedule,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
      await deps.lease.release().catch(() => undefined);
    },
  };
}
