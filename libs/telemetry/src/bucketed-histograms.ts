import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { hrTime } from '@opentelemetry/core';
import { emptyResource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  type CollectionResult,
  type DataPoint,
  type Histogram,
  type HistogramMetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';

export interface BucketedHistogramOptions {
  description: string;
  unit: string;
  /** Upper bounds of the buckets, ascending (a value equal to a bound counts in that bucket). */
  boundaries: readonly number[];
}

export interface BucketedHistogram {
  /** Counts `value` for `attributes`: with an attribute set seen before (the same object), nothing is allocated or hashed. */
  record(value: number, attributes: Attributes): void;
}

/** One attribute set's counts since it was first recorded (cumulative, as Prometheus reads them). */
interface Cell {
  readonly attributes: Attributes;
  readonly startTime: HrTime;
  readonly counts: number[];
  count: number;
  sum: number;
  min: number;
  max: number;
}

/** Index of the bucket `value` falls in: the first bound not below it, or the overflow bucket (the SDK's rule). */
function bucketOf(boundaries: readonly number[], value: number): number {
  let i = 0;
  while (i < boundaries.length && boundaries[i]! < value) i += 1;
  return i;
}

/** Attribute sets in a canonical order of their keys, so equal sets written in another order share a cell. */
const canonicalKey = (attributes: Attributes): string =>
  JSON.stringify(Object.keys(attributes).sort().map((key) => [key, attributes[key]]));

class Bucketed implements BucketedHistogram {
  /** Cells by canonical attribute set, and by the attribute objects already seen (the common case: reused sets). */
  private readonly cells = new Map<string, Cell>();
  private readonly seen = new WeakMap<Attributes, Cell>();

  constructor(
    readonly name: string,
    private readonly options: BucketedHistogramOptions,
  ) {}

  record(value: number, attributes: Attributes): void {
    if (Number.isNaN(value)) return;
    let cell = this.seen.get(attributes);
    if (!cell) {
      const key = canonicalKey(attributes);
      cell = this.cells.get(key);
      if (!cell) {
        const counts = new Array<number>(this.options.boundaries.length + 1).fill(0);
        cell = { attributes: { ...attributes }, startTime: hrTime(), counts, count: 0, sum: 0, min: Infinity, max: -Infinity };
        this.cells.set(key, cell);
      }
      this.seen.set(attributes, cell);
    }
    cell.counts[bucketOf(this.options.boundaries, value)]! += 1;
    cell.count += 1;
    cell.sum += value;
    if (value < cell.min) cell.min = value;
    if (value > cell.max) cell.max = value;
  }

  collect(endTime: HrTime): HistogramMetricData | undefined {
    if (this.cells.size === 0) return undefined;
    const boundaries = [...this.options.boundaries];
    const dataPoints: DataPoint<Histogram>[] = [...this.cells.values()].map((cell) => ({
      startTime: cell.startTime,
      endTime,
      attributes: cell.attributes,
      value: { buckets: { boundaries, counts: [...cell.counts] }, count: cell.count, sum: cell.sum, min: cell.min, max: cell.max },
    }));
    return {
      descriptor: { name: this.name, description: this.options.description, unit: this.options.unit, valueType: ValueType.DOUBLE },
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints,
    };
  }
}

const REGISTRY_KEY = Symbol.for('app.telemetry.bucketed-histograms');
type Global = typeof globalThis & { [REGISTRY_KEY]?: Map<string, Bucketed> };

const registry = (): Map<string, Bucketed> => ((globalThis as Global)[REGISTRY_KEY] ??= new Map());

/**
 * A histogram for the hottest paths (every HTTP request). The SDK's histogram hashes its attribute set
 * on every measurement (sorting and serialising the keys); this one counts into the cell of an attribute
 * object it has seen before, so a caller that reuses its attribute sets (`attributeSets`) pays a lookup
 * and an increment. The process's metric reader collects it through `bucketedHistograms` with the SDK's
 * own instruments, in the same exposition. One histogram per name in a process: asking again for a name
 * returns the same histogram, as the SDK does for an instrument.
 */
export function bucketedHistogram(name: string, options: BucketedHistogramOptions): BucketedHistogram {
  const histograms = registry();
  let histogram = histograms.get(name);
  if (!histogram) histograms.set(name, (histogram = new Bucketed(name, options)));
  return histogram;
}

/** The metric producer of every bucketed histogram of this process (given to the metric reader). */
export const bucketedHistograms: MetricProducer = {
  async collect(): Promise<CollectionResult> {
    const endTime = hrTime();
    const metrics = [...registry().values()].map((h) => h.collect(endTime)).filter((m): m is HistogramMetricData => m !== undefined);
    return {
      resourceMetrics: { resource: emptyResource(), scopeMetrics: metrics.length ? [{ scope: { name: 'render-service' }, metrics }] : [] },
      errors: [],
    };
  },
};
