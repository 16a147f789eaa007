export * from './context.js';
export { traceIncomingRequests } from './http-server.js';
export { startTelemetry, shutdownTelemetry } from './sdk.js';
export { untraced, isUntracedRequest } from './untraced.js';
export * from './metrics.js';
export { bucketedHistogram, type BucketedHistogram, type BucketedHistogramOptions } from './bucketed-histograms.js';
