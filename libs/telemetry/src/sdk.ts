import { NodeSDK } from '@opentelemetry/sdk-node';
import { AlwaysOffSampler, BatchSpanProcessor, type Sampler, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { isUntracedRequest } from './untraced.js';
import { forgetPrometheusReader, prometheusReader } from './metrics.js';

const dropSpans: SpanProcessor = {
  onStart: () => undefined,
  onEnd: () => undefined,
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

const SDK_KEY = Symbol.for('app.telemetry.sdk');

type Global = typeof globalThis & { [SDK_KEY]?: NodeSDK };

/**
 * Starts the OpenTelemetry SDK for this process: gRPC instrumentation and outgoing HTTP (a server that
 * wants spans for the requests it serves wraps its listener in `traceIncomingRequests`, a fraction of
 * the HTTP instrumentation's cost per request; outgoing requests marked `untraced` are left alone),
 * W3C trace context propagation (the default), and an OTLP/HTTP
 * exporter when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, sampled as
 * OTEL_TRACES_SAMPLER says (default: every trace). Without an endpoint spans are not recorded (nothing
 * would read them), but every request still gets a trace id and the context still propagates.
 */
export function startTelemetry(serviceName = process.env.OTEL_SERVICE_NAME ?? 'render-service'): NodeSDK {
  const g = globalThis as Global;
  if (g[SDK_KEY]) return g[SDK_KEY];
  // Metrics go to the Prometheus reader below (scraped from /metrics); without these the SDK would also
  // set up OTLP metric and log exporters aimed at a collector that may not exist, and flushing them at
  // shutdown stalls the exit for seconds.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const exporting = Boolean(
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  );
  // Without an exporter a processor that drops spans still makes the SDK install its tracer provider,
  // so every request gets a real trace id (the X-Service-Request-Id) and context still propagates; the
  // sampler makes those spans non-recording, so nobody pays for attributes and timings nobody reads.
  const spanProcessors: SpanProcessor[] = exporting
    ? [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 500 })]
    : [dropSpans];
  const sampler: Sampler | undefined = exporting ? undefined : new AlwaysOffSampler();
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors,
    ...(sampler ? { sampler } : {}),
    metricReaders: [prometheusReader()],
    instrumentations: [
      new HttpInstrumentation({
        disableIncomingRequestInstrumentation: true,
        // Other people's traffic (a page's requests relayed to its site or to a caller's proxy) is passed
        // on exactly as it came: no span, no trace context added, headers untouched.
        ignoreOutgoingRequestHook: (options) => isUntracedRequest(options),
      }),
      new GrpcInstrumentation(),
    ],
  });
  sdk.start();
  g[SDK_KEY] = sdk;
  return sdk;
}

/** Flushes and stops the SDK (graceful shutdown). */
export async function shutdownTelemetry(): Promise<void> {
  const g = globalThis as Global;
  const sdk = g[SDK_KEY];
  if (!sdk) return;
  delete g[SDK_KEY];
  // Bounded: a collector that does not answer must not hold the process after it drained.
  await Promise.race([sdk.shutdown().catch(() => undefined), new Promise((r) => setTimeout(r, 2_000).unref())]);
  forgetPrometheusReader();
}
