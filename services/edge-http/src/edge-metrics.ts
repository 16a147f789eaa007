import { meter } from '@app/telemetry';

/**
 * The edge's own instruments (HTTP latency and status by route are recorded by the server, see build-server).
 * Created once; recording allocates nothing. Admissions from a lease happen on every busy key's cache
 * hit, so they are counted in a plain number the counter reads when scraped, not recorded one by one.
 */
export function edgeMetrics() {
  const shed = meter().createCounter('render.shed', {
    description: 'Synchronous renders answered 503 renderer_unavailable because no renderer started them in time.',
  });
  let leased = 0;
  meter()
    .createObservableCounter('admissions.leased', {
      description: 'Requests this edge admitted itself, from a rate lease (busy keys\' cache hits), without a call to auth-quota.',
    })
    .addCallback((result) => result.observe(leased));
  return {
    shed: () => shed.add(1),
    leased: () => {
      leased += 1;
    },
  };
}
