import { attributeSets, meter } from '@app/telemetry';

/** auth-quota's own instruments (gRPC latency and status come from @app/rpc). */
export function authQuotaMetrics() {
  const refusals = meter().createCounter('quota.refusals', {
    description: 'Admissions and reservations refused, by reason (quota_exceeded, rate_limited, access_key_invalid...).',
  });
  const attributes = attributeSets((reason: string) => ({ reason }));
  return { refused: (code: string) => refusals.add(1, attributes(code, undefined)) };
}
