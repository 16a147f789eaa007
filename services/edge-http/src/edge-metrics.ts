import { meter } from '@app/telemetry';

/**
 * The edge's own instruments (HTTP latency and status come from the HTTP instrumentation, by route).
 * Created once; recording allocates nothing.
 */
export function edgeMetrics() {
  const shed = meter().createCounter('render.shed', {
    description: 'Synchronous renders answered 503 renderer_unavailable because no renderer started them in time.',
  });
  const leased = meter().createCounter('admissions.leased', {
    description: 'Requests this edge admitted itself, from a rate lease (busy keys\' cache hits), without a call to auth-quota.',
  });
  return { shed: () => shed.add(1), leased: () => leased.add(1) };
}
