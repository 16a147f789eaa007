// Loaded with `node --import @app/telemetry/register main.js`: starts the SDK before any application
// module is imported, then loads the modules its instrumentations patch (`node:http`, `node:https`,
// `@grpc/grpc-js`) through `require`, where the instrumentations' require hook patches them in place.
// The application's `import`s of them then get the patched objects (Node keeps one copy of a CommonJS
// module and of a built-in), so outgoing HTTP and gRPC carry trace context and gRPC calls make spans.
//
// No ESM loader hook (import-in-the-middle) is registered: on Node 20 such a hook runs on a thread of its
// own and every module the service imports makes two round trips to it, a second or more of CPU per
// service at start, to wrap three modules that are patched here anyway.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const { startTelemetry } = await import('./sdk.js');
startTelemetry();
const require = createRequire(import.meta.url);
for (const patched of ['node:http', 'node:https', '@grpc/grpc-js']) require(patched);
// Named imports of a built-in (`import { request } from 'node:http'`) read these live bindings.
syncBuiltinESMExports();
