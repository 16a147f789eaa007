// Loaded with `node --import @app/telemetry/register main.js`: registers the ESM instrumentation hook
// before any application module is imported (without it gRPC spans vanish), then starts the SDK.
//
// The hook wraps only the modules an instrumentation asks for (`createAddHookMessageChannel`): the SDK's
// instrumentations name them as they are created, and the loader has them before the application's first
// import. Wrapping every module instead cost each service about a second of CPU at start.
import { register } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';

const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, registerOptions);

const { startTelemetry } = await import('./sdk.js');
startTelemetry();
await waitForAllMessagesAcknowledged();
