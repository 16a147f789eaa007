// Loaded with `node --import @app/telemetry/register main.js`: registers the ESM instrumentation hook
// before any application module is imported (without it gRPC spans vanish), then starts the SDK.
import { register } from 'node:module';

register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);

const { startTelemetry } = await import('./sdk.js');
startTelemetry();
