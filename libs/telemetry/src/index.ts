export * from './context.js';
export { startTelemetry, shutdownTelemetry } from './sdk.js';
