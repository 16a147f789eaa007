import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { SpanKind, withSpan } from '@app/telemetry';
import { traceContextOf } from './trace-headers.js';

type Log = (obj: object, msg?: string) => void;

/** What to do with a message once handled: done, never again, or again after a delay. */
export type Disposition = { kind: 'ack' } | { kind: 'term' } | { kind: 'nak'; delayMs: number };

export const ack: Disposition = { kind: 'ack' };
export const term: Disposition = { kind: 'term' };
export const nak = (delayMs: number): Disposition => ({ kind: 'nak', delayMs });

export interface PullWorkers {
  start(): void;
  /** Stops pulling and waits for the messages in hand. */
  stop(): Promise<void>;
}

/**
 * `concurrency` workers pulling one message at a time from a durable consumer shared by every replica,
 * so messages spread over replicas and a replica never holds more than it is working on. While `handle`
 * runs, the message is kept alive with working() every `heartbeatMs`; its Disposition decides the ack.
 * A thrown error naks the message after `errorDelayMs` (it comes back, up to the consumer's max_deliver).
 */
export function pullWorkers(deps: {
  js: JetStreamClient;
  stream: string;
  durable: string;
  concurrency: number;
  logger: { warn: Log; error: Log };
  /** Span name and attributes of one handled message (the trace continues from its headers). */
  span: (msg: JsMsg) => { name: string; attributes?: Record<string, string | number | boolean> };
  handle: (msg: JsMsg) => Promise<Disposition>;
  heartbeatMs?: number;
  errorDelayMs?: number;
}): PullWorkers {
  const { js, logger } = deps;
  let running = false;
  let workers: Promise<void>[] = [];

  const settle = (msg: JsMsg, d: Disposition) => {
    if (d.kind === 'ack') msg.ack();
    else if (d.kind === 'term') msg.term();
    else msg.nak(d.delayMs);
  };

  const handleOne = async (msg: JsMsg) => {
    const heartbeat = deps.heartbeatMs ? setInterval(() => msg.working(), deps.heartbeatMs) : undefined;
    try {
      const { name, attributes } = deps.span(msg);
      const disposition = await withSpan(
        name,
        { kind: SpanKind.CONSUMER, parent: traceContextOf(msg.headers), attributes: { ...attributes, 'messaging.delivery': msg.info.deliveryCount } },
        () => deps.handle(msg),
      );
      settle(msg, disposition);
    } catch (err) {
      logger.error({ err, durable: deps.durable, subject: msg.subject }, 'message handling failed; it will be redelivered');
      msg.nak(deps.errorDelayMs ?? 1_000);
    } finally {
      if (heartbeat) clearInterval(heartbeat);
    }
  };

  const worker = async () => {
    let consumer;
    while (running && !consumer) {
      try {
        consumer = await js.consumers.get(deps.stream, deps.durable);
      } catch (err) {
        logger.warn({ err, durable: deps.durable }, 'consumer not available yet; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    while (running && consumer) {
      let msg: JsMsg | null = null;
      try {
        msg = await consumer.next({ expires: 1_000 });
      } catch (err) {
        if (!running) break;
        logger.warn({ err, durable: deps.durable }, 'pulling failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (!msg) continue;
      if (!running) {
        // Stopping: give it straight back rather than start work now.
        msg.nak();
        break;
      }
      await handleOne(msg);
    }
  };

  return {
    start() {
      if (running) return;
      running = true;
      workers = Array.from({ length: deps.concurrency }, () => worker());
    },
    async stop() {
      running = false;
      await Promise.allSettled(workers);
    },
  };
}
