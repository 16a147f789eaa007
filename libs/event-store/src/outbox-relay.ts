import type { EventStore, StoredEvent } from './event-store.js';

export interface OutboxRelayOptions {
  intervalMs: number;
  /** Events read from the outbox per round trip. */
  batch: number;
  /**
   * Publishes started before their outcomes are awaited (default 1: one at a time). Above 1, a failed
   * publish still stops the relay at that event, and it and every later event are published again on the
   * next flush, but later events of its window may already have reached the broker before it: use it where
   * consumers need each event once (the message id), not strictly in order.
   */
  inFlight?: number;
  /**
   * Which events are published (default: all). The others are marked published without a publish: what
   * no consumer reads is not sent. They still count in `flush`'s total.
   */
  relays?: (event: StoredEvent) => boolean;
  /** Called when a background flush fails; the events stay pending and the next tick retries. */
  onError?: (err: unknown) => void;
}

export interface OutboxRelay {
  start(): void;
  /** Stops the timer and waits for the flush in progress. */
  stop(): Promise<void>;
  /** Publishes everything pending now; resolves with the number of events published. */
  flush(): Promise<number>;
}

/** The message id to publish an event under (`Nats-Msg-Id`), so the broker drops a re-published event. */
export const outboxMessageId = (e: Pick<StoredEvent, 'streamId' | 'version'>): string => `${e.streamId}:${e.version}`;

/**
 * Publishes outbox events in global order and marks them published. It stops at the first failed publish
 * so nothing is published out of order (one publish in flight; see `inFlight`). A crash between publish and
 * mark publishes the event again on the next run: at least once, which becomes exactly once downstream when
 * `publish` uses `outboxMessageId`.
 */
export function outboxRelay(
  store: EventStore,
  publish: (e: StoredEvent) => Promise<void>,
  opts: OutboxRelayOptions,
): OutboxRelay {
  if (!Number.isSafeInteger(opts.batch) || opts.batch < 1) {
    throw new RangeError('outboxRelay: batch must be an integer ≥ 1');
  }
  const inFlight = opts.inFlight ?? 1;
  if (!Number.isSafeInteger(inFlight) || inFlight < 1) throw new RangeError('outboxRelay: inFlight must be an integer ≥ 1');
  const relays = opts.relays ?? (() => true);
  const onError = opts.onError ?? ((err: unknown) => console.error('outbox relay: publishing failed', err));
  let queue: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  async function publishPending(): Promise<number> {
    let total = 0;
    for (;;) {
      const pending = await store.pendingOutbox(opts.batch);
      const published: string[] = [];
      try {
        for (let from = 0; from < pending.length; from += inFlight) {
          const window = pending.slice(from, from + inFlight);
          // Started in global order; the outcomes are taken in the same order, up to the first failure.
          const outcomes = await Promise.allSettled(window.map(async (event) => (relays(event) ? publish(event) : undefined)));
          for (const [i, outcome] of outcomes.entries()) {
            if (outcome.status === 'rejected') throw outcome.reason;
            published.push(window[i]!.id);
          }
        }
      } finally {
        await store.markPublished(published);
        total += published.length;
      }
      if (pending.length < opts.batch) return total;
    }
  }

  /** One flush at a time: a flush asked for during another runs right after it. */
  function flush(): Promise<number> {
    const next = queue.then(publishPending);
    queue = next.catch(() => undefined);
    return next;
  }

  function tick(): void {
    flush()
      .catch(onError)
      .finally(() => {
        if (running) timer = setTimeout(tick, opts.intervalMs);
      });
  }

  return {
    start() {
      if (running) return;
      running = true;
      timer = setTimeout(tick, 0);
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await queue;
    },
    flush,
  };
}
