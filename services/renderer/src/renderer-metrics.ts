import { DURATION_BUCKETS_SECONDS, attributeSets, meter } from '@app/telemetry';
import type { JobOutcome } from './application/ports.js';
import type { BrowserPool } from './browser/index.js';

/**
 * The renderer's instruments: render duration by operation and outcome (recorded per job with reused
 * attribute sets), and pool slots, queue depth and browser restarts, read only when scraped.
 */
export function rendererMetrics(deps: { pool: BrowserPool; concurrency: number; queueDepth: () => Promise<number> }) {
  const m = meter();
  const duration = m.createHistogram('render.duration', {
    description: 'Time a render job took on this renderer, by operation and outcome (shed: dropped unrendered).',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS_SECONDS },
  });
  const attributes = attributeSets((operation: string, outcome: JobOutcome) => ({ operation, outcome }));
  m.createObservableGauge('render.pool.slots.busy', { description: 'Renders in progress in this renderer.' }).addCallback((r) =>
    r.observe(deps.pool.stats().inFlight),
  );
  m.createObservableGauge('render.pool.slots', { description: 'Renders this renderer runs at once.' }).addCallback((r) =>
    r.observe(deps.concurrency),
  );
  m.createObservableCounter('render.browser.restarts', { description: 'Browsers replaced after a crash, a hang or their render budget.' }).addCallback(
    (r) => r.observe(deps.pool.stats().restarts),
  );
  m.createObservableGauge('render.queue.depth', { description: 'Render jobs waiting in the shared queue for any renderer.' }).addCallback(
    async (r) => {
      try {
        r.observe(await deps.queueDepth());
      } catch {
        // The bus is down: no reading rather than a wrong one.
      }
    },
  );
  return {
    observe: (operation: string, outcome: JobOutcome, seconds: number) => duration.record(seconds, attributes(operation, outcome)),
  };
}
