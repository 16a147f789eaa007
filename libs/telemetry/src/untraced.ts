import type { ClientRequestArgs } from 'node:http';

/**
 * Marks what carries other people's traffic (the egress guard, a caller's proxy relay): requests made
 * with marked options or a marked agent are left alone by the HTTP instrumentation: no span, no
 * `traceparent`, `tracestate` or `baggage` added, headers passed on as they were given (the
 * instrumentation would otherwise copy a raw header list into an object).
 */
const UNTRACED = Symbol.for('app.telemetry.untraced');

type Markable = object & { [UNTRACED]?: true };

/** Marks request options or an Agent as untraced; returns it. */
export function untraced<T extends object>(target: T): T {
  Object.defineProperty(target, UNTRACED, { value: true, enumerable: true, configurable: true });
  return target;
}

const marked = (value: unknown): boolean => typeof value === 'object' && value !== null && (value as Markable)[UNTRACED] === true;

/** An outgoing request whose options or agent are marked. */
export function isUntracedRequest(options: ClientRequestArgs): boolean {
  return marked(options) || marked(options.agent);
}
