import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';

/**
 * Wraps a Node request listener so that each request runs inside a SERVER span continued from the
 * caller's W3C trace context: downstream calls (gRPC, NATS) carry it, logs get its ids, and
 * `currentTraceId()` answers. It does only that (no emitter binding, no header parsing for
 * attributes unless the span is recorded), so an unsampled request costs next to nothing; the route's
 * name is given by the framework once it has matched (`nameHttpRoute`).
 */
export function traceIncomingRequests<Req extends IncomingMessage, Res extends ServerResponse>(
  listener: (req: Req, res: Res) => void,
  opts: { ignore?: (req: Req) => boolean } = {},
): (req: Req, res: Res) => void {
  const tracer = trace.getTracer('render-service');
  return (req, res) => {
    if (opts.ignore?.(req)) return listener(req, res);
    const parent = req.headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(req.method ?? 'HTTP', { kind: SpanKind.SERVER }, parent);
    if (span.isRecording()) {
      const path = req.url?.split('?')[0] ?? '/';
      span.setAttributes({ 'http.request.method': req.method ?? '', 'url.path': path, 'url.scheme': 'encrypted' in req.socket ? 'https' : 'http' });
      res.once('close', () => {
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
    }
    context.with(trace.setSpan(parent, span), listener, undefined, req, res);
  };
}
