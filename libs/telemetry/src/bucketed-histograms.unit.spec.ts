import { describe, expect, it } from 'vitest';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { bucketedHistogram, bucketedHistograms } from './bucketed-histograms.js';

const BOUNDARIES = [0.005, 0.01, 0.025, 0.1, 1];

/** A Prometheus reader of a meter provider, with the bucketed histograms' producer, as the service has. */
function prometheusReader() {
  const exporter = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true, metricProducers: [bucketedHistograms] });
  const provider = new MeterProvider({ readers: [exporter] });
  return { exporter, provider };
}

/** The Prometheus exposition of one metric, its name replaced by NAME, lines sorted (data point order aside). */
async function exposition(exporter: PrometheusExporter, metric: string): Promise<string[]> {
  const { resourceMetrics } = await exporter.collect();
  const text = new PrometheusSerializer(undefined, false, undefined, true, true).serialize(resourceMetrics);
  return text
    .split('\n')
    .filter((line) => line.includes(metric))
    .map((line) => line.replaceAll(metric, 'NAME'))
    .sort();
}

describe('bucketedHistogram', () => {
  it('exposes exactly what the SDK histogram exposes for the same measurements', async () => {
    const { exporter, provider } = prometheusReader();
    const sdk = provider.getMeter('render-service').createHistogram('sdk.same.duration', {
      description: 'Duration.',
      unit: 's',
      advice: { explicitBucketBoundaries: BOUNDARIES },
    });
    const ours = bucketedHistogram('ours.same.duration', { description: 'Duration.', unit: 's', boundaries: BOUNDARIES });
    const hit = Object.freeze({ 'http.route': '/v1/screenshot', 'http.response.status_code': 200 });
    const refused = { 'http.route': '/v1/usage', 'http.response.status_code': 401 };
    // Below, on and between bounds, above the last one, and NaN (not counted); one set given as a new
    // object each time, in another key order.
    const measurements: [number, () => Record<string, string | number>][] = [
      [0.001, () => hit],
      [0.005, () => hit],
      [0.0051, () => hit],
      [0.01, () => hit],
      [0.3, () => hit],
      [7, () => hit],
      [Number.NaN, () => hit],
      [0.02, () => ({ 'http.response.status_code': 401, 'http.route': '/v1/usage' })],
      [0.002, () => ({ ...refused })],
    ];
    for (const [value, attributes] of measurements) {
      sdk.record(value, attributes());
      ours.record(value, attributes());
    }

    const expected = await exposition(exporter, 'sdk_same_duration');
    expect(expected.some((line) => line.includes('le="0.005"'))).toBe(true);
    expect(await exposition(exporter, 'ours_same_duration')).toEqual(expected);
    await provider.shutdown();
  });

  it('counts equal attribute sets in one series, and is one histogram per name', async () => {
    const { exporter, provider } = prometheusReader();
    const histogram = bucketedHistogram('ours.series.duration', { description: 'Duration.', unit: 's', boundaries: BOUNDARIES });
    expect(bucketedHistogram('ours.series.duration', { description: 'Other.', unit: 's', boundaries: [1] })).toBe(histogram);
    const attributes = { method: 'GET' };
    histogram.record(0.001, attributes);
    histogram.record(0.002, attributes);
    histogram.record(0.2, { method: 'GET' });
    histogram.record(0.2, { method: 'POST' });

    const lines = await exposition(exporter, 'ours_series_duration');
    expect(lines).toContain('NAME_count{method="GET"} 3');
    expect(lines).toContain('NAME_bucket{method="GET",le="0.005"} 2');
    expect(lines).toContain('NAME_bucket{method="GET",le="+Inf"} 3');
    expect(lines).toContain('NAME_count{method="POST"} 1');
    await provider.shutdown();
  });
});
