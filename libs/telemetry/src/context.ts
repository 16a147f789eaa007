import {
  ROOT_CONTEXT,
  context,
  propagation,
  trace,
  SpanKind,
  SpanStatusCode,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';

export { context, trace, SpanKind, SpanStatusCode, type Span, type Context };

/** The active trace id, or a random one when nothing is traced (so a request id always exists). */
export function currentTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  const id = span?.spanContext().traceId;
  return id && id !== '00000000000000000000000000000000' ? id : undefined;
}

/**
 * Names the HTTP server span of the current request after its route template (`POST /v1/tasks/:id`),
 * which the request listener cannot know: call it once the framework has matched the route. Given as a
 * function, the route is read only when the span is recorded.
 */
export function nameHttpRoute(method: string, routeOf: string | (() => string | undefined)): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  const route = typeof routeOf === 'string' ? routeOf : routeOf();
  if (route === undefined) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
}

/**
 * Runs `fn` outside any trace. A timer or callback captures the context it was set up in: work it does
 * later on behalf of many (a scheduled burst) is not part of the one trace that happened to arm it.
 */
export function outsideTraces<T>(fn: () => T): T {
  return context.with(ROOT_CONTEXT, fn);
}

/** Writes the W3C trace context of `ctx` into any header carrier through `set`. */
export function injectTraceContext<C>(carrier: C, set: (carrier: C, key: string, value: string) => void, ctx: Context = context.active()): C {
  const setter: TextMapSetter<C> = { set };
  propagation.inject(ctx, carrier, setter);
  return carrier;
}

/** Reads the W3C trace context from any header carrier. */
export function extractTraceContext<C>(
  carrier: C,
  get: (carrier: C, key: string) => string | undefined,
  keys: (carrier: C) => string[],
): Context {
  const getter: TextMapGetter<C> = { get, keys };
  return propagation.extract(context.active(), carrier, getter);
}

/** Runs `fn` inside a new span, ending it and recording errors whatever happens. */
export async function withSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Record<string, string | number | boolean>; parent?: Context },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const tracer = trace.getTracer('render-service');
  const parent = options.parent ?? context.active();
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}
