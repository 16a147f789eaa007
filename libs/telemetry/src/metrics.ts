import type { IncomingMessage, ServerResponse } from 'node:http';
import { metrics, ValueType, type Attributes, type Meter } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { bucketedHistogram, bucketedHistograms } from './bucketed-histograms.js';

export { ValueType, type Attributes, type Meter };
export type { Counter, Histogram, ObservableGauge, ObservableCounter, ObservableResult } from '@opentelemetry/api';

const READER_KEY = Symbol.for('app.telemetry.prometheus');
type Global = typeof globalThis & { [READER_KEY]?: PrometheusExporter };

/**
 * The metric reader of this process: Prometheus text on demand, served by the service's own operations
 * port (`serveMetrics`) rather than by a server of the exporter's. Collection happens only when scraped,
 * of the SDK's instruments and of the bucketed histograms (`bucketedHistogram`) alike.
 */
export function prometheusReader(): PrometheusExporter {
  const g = globalThis as Global;
  g[READER_KEY] ??= new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true, metricProducers: [bucketedHistograms] });
  return g[READER_KEY];
}

/** Forgets the reader once its SDK has shut down (a reader is bound to one meter provider for good). */
export function forgetPrometheusReader(): void {
  delete (globalThis as Global)[READER_KEY];
}

/** GET /metrics: the Prometheus exposition of every instrument of this process (404 when metrics are off). */
export function serveMetrics(req: IncomingMessage, res: ServerResponse): void {
  const reader = (globalThis as Global)[READER_KEY];
  if (!reader) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('metrics are not enabled in this process\n');
    return;
  }
  reader.getMetricsRequestHandler(req, res);
}

/** The meter of the service's own instruments (a no-op meter when the SDK is not started, as in unit tests). */
export function meter(): Meter {
  return metrics.getMeter('render-service');
}

/** Buckets in seconds for anything from a cache hit to a long render. */
export const DURATION_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Attribute sets built once per combination of values and reused, so recording a measurement allocates
 * nothing once every combination has been seen (label values must come from small, fixed sets).
 */
export function attributeSets<A extends string | number, B extends string | number | undefined = undefined>(
  build: (a: A, b: B) => Attributes,
): (a: A, b: B) => Attributes {
  const byA = new Map<A, Map<B, Attributes>>();
  return (a, b) => {
    let byB = byA.get(a);
    if (!byB) byA.set(a, (byB = new Map()));
    let attributes = byB.get(b);
    if (!attributes) byB.set(b, (attributes = Object.freeze(build(a, b))));
    return attributes;
  };
}

/**
 * HTTP server latency and status by method and route template (`http.server.request.duration`, the
 * OpenTelemetry semantic convention), for servers whose requests the HTTP instrumentation does not see.
 * Recorded on every request: attribute sets are reused per method, route and status, and counted by a
 * bucketed histogram, so recording allocates and hashes nothing once a combination has been seen.
 */
export function httpServerDuration(): (method: string, route: string, status: number, seconds: number) => void {
  const histogram = bucketedHistogram('http.server.request.duration', {
    description: 'Duration of HTTP server requests.',
    unit: 's',
    boundaries: DURATION_BUCKETS_SECONDS,
  });
  const byMethod = new Map<string, (route: string, status: number) => Attributes>();
  return (method, route, status, seconds) => {
    let sets = byMethod.get(method);
    if (!sets) {
      sets = attributeSets((r: string, s: number) => ({ 'http.request.method': method, 'http.route': r, 'http.response.status_code': s }));
      byMethod.set(method, sets);
    }
    histogram.record(seconds, sets(route, status));
  };
}
