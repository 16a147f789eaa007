import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { durableConsumerOf, messageHandler, nextMessage, type MessageHandling, type PullWorkers } from './pull-workers.js';
import { RoundRobinQueue } from './round-robin-queue.js';

interface Held {
  key: string;
  msg: JsMsg;
  heartbeat: NodeJS.Timeout | undefined;
}

/**
 * Up to `concurrency` messages handled at once, started by `keyOf` (the account a message is for) rather
 * than in the order they were published: while every slot is busy, this replica takes up to `lookahead`
 * more messages from the durable consumer and keeps them alive (working()); when a slot frees, it starts
 * the oldest message of the key with the fewest messages running here, the key served least recently
 * among equals (RoundRobinQueue). One key with many messages waiting therefore never delays another's
 * by more than the slots that free before its turn. Several replicas share the consumer: each holds at
 * most `lookahead` messages it has not started, so the rest stay in the stream for the others.
 */
export function fairPullWorkers(
  deps: MessageHandling & {
    js: JetStreamClient;
    stream: string;
    concurrency: number;
    /**
     * Messages held waiting beyond those handled (default: `concurrency`; 0: a message is taken only when a
     * slot is free), or a function asked each time: a replica with peers that could start a message should
     * not hold it.
     */
    lookahead?: number | (() => number);
    /** The fairness key of a message; messages it cannot read share the key ''. */
    keyOf: (msg: JsMsg) => string;
  },
): PullWorkers {
  const lookahead = () => Math.max(0, typeof deps.lookahead === 'function' ? deps.lookahead() : (deps.lookahead ?? deps.concurrency));
  const handleOne = messageHandler(deps);
  const waiting = new RoundRobinQueue<Held>();
  const active = new Set<Promise<void>>();
  /** Messages running, by key. */
  const runningByKey = new Map<string, number>();
  const running = (key: string) => runningByKey.get(key) ?? 0;
  let pulling = false;
  let puller: Promise<void> | undefined;
  let roomMade: (() => void) | undefined;

  const hasRoom = () => active.size + waiting.size < deps.concurrency + lookahead();
  const wake = () => {
    const resolve = roomMade;
    roomMade = undefined;
    resolve?.();
  };

  const dispatch = () => {
    while (pulling && active.size < deps.concurrency) {
      const next = waiting.shift(running);
      if (!next) return;
      if (next.heartbeat) clearInterval(next.heartbeat);
      runningByKey.set(next.key, running(next.key) + 1);
      const handled: Promise<void> = handleOne(next.msg).finally(() => {
        const left = running(next.key) - 1;
        if (left > 0) runningByKey.set(next.key, left);
        else runningByKey.delete(next.key);
        active.delete(handled);
        dispatch();
        wake();
      });
      active.add(handled);
    }
  };

  const keyOf = (msg: JsMsg) => {
    try {
      return deps.keyOf(msg);
    } catch {
      return '';
    }
  };

  const pull = async () => {
    const consumer = await durableConsumerOf(deps, () => pulling);
    while (pulling && consumer) {
      if (!hasRoom()) {
        await new Promise<void>((resolve) => (roomMade = resolve));
        continue;
      }
      const msg = await nextMessage(consumer, deps, () => pulling);
      if (!msg) continue;
      const heartbeat = deps.heartbeatMs ? setInterval(() => msg.working(), deps.heartbeatMs) : undefined;
      const key = keyOf(msg);
      waiting.push(key, { key, msg, heartbeat });
      dispatch();
    }
  };

  return {
    start() {
      if (pulling) return;
      pulling = true;
      puller = pull();
    },
    async stop() {
      pulling = false;
      wake();
      await puller;
      // Messages held but not started go back to the stream for another replica.
      for (const { msg, heartbeat } of waiting.drain()) {
        if (heartbeat) clearInterval(heartbeat);
        msg.nak();
      }
      await Promise.allSettled([...active]);
    },
  };
}
