import type { Consumer, ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { SpanKind, withSpan } from '@app/telemetry';
import { dispositionAfter, type Disposition } from '@app/errors';
import { traceContextOf } from './trace-headers.js';
import type { Log } from './decode-or-log.js';

export { ack, nak, term, type Disposition } from '@app/errors';

export interface PullWorkers {
  start(): void;
  /** Stops pulling and waits for the messages in hand. */
  stop(): Promise<void>;
}

/** What handling one message of a durable consumer takes (shared by the pull workers and the fair pull). */
export interface MessageHandling {
  durable: string;
  logger: { warn: Log; error: Log };
  /** Span name and attributes of one handled message (the trace continues from its headers). */
  span: (msg: JsMsg) => { name: string; attributes?: Record<string, string | number | boolean> };
  handle: (msg: JsMsg) => Promise<Disposition>;
  heartbeatMs?: number;
  errorDelayMs?: number;
}

const pause = (): Promise<unknown> => new Promise((r) => setTimeout(r, 500));

/**
 * Handles one message: keeps it alive with working() every `heartbeatMs` while `handle` runs, then settles
 * it as its Disposition says. A thrown error settles it as the error table says: a passing condition or a
 * fault naks it after `errorDelayMs` or the error's Retry-After, an error that can never succeed acks or terms it.
 */
export function messageHandler(deps: MessageHandling): (msg: JsMsg) => Promise<void> {
  const { logger } = deps;
  const settle = (msg: JsMsg, d: Disposition) => {
    if (d.kind === 'ack') msg.ack();
    else if (d.kind === 'term') msg.term();
    else msg.nak(d.delayMs);
  };

  return async (msg: JsMsg) => {
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
      // The error table decides (libs/errors): a passing condition or a fault comes back after a delay
      // (up to the consumer's max_deliver); a message that failed for good is not delivered again.
      const after = dispositionAfter(err, { isLast: false }, deps.errorDelayMs ?? 1_000);
      const outcome = after.kind === 'nak' ? 'it will be redelivered' : 'it is not delivered again';
      logger.error({ err, durable: deps.durable, subject: msg.subject }, `message handling failed; ${outcome}`);
      settle(msg, after);
    } finally {
      if (heartbeat) clearInterval(heartbeat);
    }
  };
}

/** The durable consumer, asked for again until it exists or `running()` turns false. */
export async function durableConsumerOf(
  deps: { js: JetStreamClient; stream: string; durable: string; logger: { warn: Log } },
  running: () => boolean,
): Promise<Consumer | undefined> {
  while (running()) {
    try {
      return await deps.js.consumers.get(deps.stream, deps.durable);
    } catch (err) {
      deps.logger.warn({ err, durable: deps.durable }, 'consumer not available yet; retrying');
      await pause();
    }
  }
  return undefined;
}

/**
 * The next message of `consumer`, waiting up to a second for one: null when none came, when pulling failed
 * (logged, after a pause), or when `running()` turned false meanwhile (the message is given straight back
 * rather than started now).
 */
export async function nextMessage(consumer: Consumer, deps: { durable: string; logger: { warn: Log } }, running: () => boolean): Promise<JsMsg | null> {
  let msg: JsMsg | null;
  try {
    msg = await consumer.next({ expires: 1_000 });
  } catch (err) {
    if (running()) {
      deps.logger.warn({ err, durable: deps.durable }, 'pulling failed; retrying');
      await pause();
    }
    return null;
  }
  if (msg && !running()) {
    msg.nak();
    return null;
  }
  return msg;
}

/**
 * How long each pull request of a continuous pull lasts. The client expects a heartbeat every half of it and
 * pulls again after two are missed, which is how it finds a stream leader that moved (a NATS node lost): at
 * the library's default of 30 s, a consumer would sit idle that long after a failover.
 */
const CONSUME_EXPIRES_MS = 2_000;

/** How long a pull request of the slot-bounded pull waits for messages (and the client for its heartbeats). */
const FETCH_EXPIRES_MS = 1_000;

/**
 * Up to `concurrency` messages handled at once from a durable consumer shared by every replica. The replica
 * asks for exactly as many messages as it has free slots, in one pull request at a time, so messages spread
 * over replicas and a replica never holds more than it is working on; idle, it sends one pull request a
 * second, not one per slot. While `handle` runs, the message is kept alive with working() every `heartbeatMs`;
 * its Disposition decides the ack. A thrown error settles the message as the error table says: a passing
 * condition or a fault naks it after `errorDelayMs` or the error's Retry-After (it comes back, up to the
 * consumer's max_deliver), an error that can never succeed acks or terms it.
 */
export function pullWorkers(deps: MessageHandling & {
  js: JetStreamClient;
  stream: string;
  concurrency: number;
  /**
   * One continuous pull of up to `concurrency` messages, handled `concurrency` at a time, instead of one pull
   * request per message: far cheaper when messages come by the thousand and each is handled quickly. The
   * replica may then hold up to `concurrency` messages more than it works on (their ack_wait runs), so keep
   * it off where a message is long work that other replicas should take instead.
   */
  prefetch?: boolean;
}): PullWorkers {
  const { logger } = deps;
  let running = false;
  let workers: Promise<void>[] = [];
  let stream: ConsumerMessages | undefined;

  const handleOne = messageHandler(deps);
  const durableConsumer = () => durableConsumerOf(deps, () => running);

  /** A message a pull brought: handed back once stopping (false), otherwise handled and held in `inHand` until done. */
  const take = (msg: JsMsg, inHand: Set<Promise<void>>): boolean => {
    if (!running) {
      msg.nak();
      return false;
    }
    const handled: Promise<void> = handleOne(msg).finally(() => inHand.delete(handled));
    inHand.add(handled);
    return true;
  };

  /** The prefetching worker: one consume, `concurrency` handlers at a time. */
  const consumeWorker = async () => {
    const consumer = await durableConsumer();
    while (running && consumer) {
      const inHand = new Set<Promise<void>>();
      try {
        stream = await consumer.consume({ max_messages: deps.concurrency, expires: CONSUME_EXPIRES_MS });
        for await (const msg of stream) {
          if (take(msg, inHand) && inHand.size >= deps.concurrency) await Promise.race(inHand);
        }
      } catch (err) {
        if (running) logger.warn({ err, durable: deps.durable }, 'pulling failed; retrying');
      }
      await Promise.all(inHand);
      if (running) await pause();
    }
  };

  /**
   * The slot-bounded pull: one pull request for as many messages as there are free slots, handled as they
   * come; when it is filled or expires, the next asks for the slots free then. While it waits, a slot that
   * frees has nothing to take (the request would have been filled), so no message waits for a slot.
   */
  const fetchWorker = async () => {
    const consumer = await durableConsumer();
    const inHand = new Set<Promise<void>>();
    while (running && consumer) {
      const free = deps.concurrency - inHand.size;
      if (free <= 0) {
        await Promise.race(inHand);
        continue;
      }
      try {
        stream = await consumer.fetch({ max_messages: free, expires: FETCH_EXPIRES_MS });
        for await (const msg of stream) take(msg, inHand);
      } catch (err) {
        if (running) {
          logger.warn({ err, durable: deps.durable }, 'pulling failed; retrying');
          await pause();
        }
      }
    }
    await Promise.all(inHand);
  };

  return {
    start() {
      if (running) return;
      running = true;
      workers = [deps.prefetch ? consumeWorker() : fetchWorker()];
    },
    async stop() {
      running = false;
      await stream?.close();
      await Promise.allSettled(workers);
    },
  };
}
