import { headers, type MsgHdrs } from '@nats-io/transport-node';
import { extractTraceContext, injectTraceContext, type Context } from '@app/telemetry';

/** NATS headers carrying the active W3C trace context (traceparent, tracestate). */
export function traceHeaders(existing: MsgHdrs = headers()): MsgHdrs {
  return injectTraceContext(existing, (h, k, v) => h.set(k, v));
}

/** The trace context a message was published under. */
export function traceContextOf(msgHeaders: MsgHdrs | undefined): Context {
  const h = msgHeaders ?? headers();
  return extractTraceContext(
    h,
    (carrier, key) => (carrier.has(key) ? carrier.get(key) : undefined),
    (carrier) => carrier.keys(),
  );
}
