import { meter } from '@app/telemetry';

/** Buckets in seconds for how late a run is dispatched after its due time. */
const LAG_BUCKETS_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300];

/** The scheduler's instruments (gRPC latency and status come from @app/rpc). */
export function schedulerMetrics() {
  const lag = meter().createHistogram('scheduler.dispatch.lag', {
    description: 'Time from a run\'s due time to its render job being published.',
    unit: 's',
    advice: { explicitBucketBoundaries: LAG_BUCKETS_SECONDS },
  });
  const comparison = meter().createHistogram('scheduler.monitor.comparison', {
    description: 'Time to compare a monitoring task\'s run with the previous one (by mode).',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] },
  });
  return {
    dispatched: (lagMs: number) => lag.record(Math.max(0, lagMs) / 1000),
    compared: (ms: number, mode: string) => comparison.record(ms / 1000, { mode }),
  };
}
