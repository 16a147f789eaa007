import type { ServerUnaryCall } from '@grpc/grpc-js';
import { DURATION_BUCKETS_SECONDS, attributeSets, meter, type Histogram } from '@app/telemetry';

let duration: Histogram | undefined;
const attributes = attributeSets((method: string, status: number) => ({ 'rpc.method': method, 'rpc.grpc.status_code': status }));

/** gRPC server latency and status by method (the gRPC instrumentation records spans only). */
export function recordRpc(call: ServerUnaryCall<unknown, unknown>, startedMs: number, status: number): void {
  duration ??= meter().createHistogram('rpc.server.duration', {
    description: 'Duration of gRPC calls served, by method and status code.',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS_SECONDS },
  });
  const path = call.getPath();
  duration.record((performance.now() - startedMs) / 1000, attributes(path.slice(path.lastIndexOf('/') + 1), status));
}
