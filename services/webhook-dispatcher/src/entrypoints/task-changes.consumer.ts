import { WEBHOOK_TASK_CHANGES_CONSUMER, ack, decodeOrLog, pullWorkers, term, type JetStreamClient, type PullWorkers } from '@app/messaging';
import { TaskChangedEvent } from '@app/proto/scheduler';
import type { Logger } from '@app/logging';
import type { Disposition } from '@app/errors';
import type { Delivery } from '../application/deliver-webhook.js';
import { announcementDeliveries, type ChannelSenders } from '../application/announcement-deliveries.js';

/**
 * Announcements of monitoring tasks (`scheduler.task.changed`, one message per change, failing episode or
 * recovery) delivered to the task's webhook (task.changed, task.failing, task.recovered, signed) and to each
 * of its monitor's notify channels, every one through the same claimed, recorded, retried delivery: a
 * channel delivered already is not sent again when the message comes back for another's retry.
 */
export function taskChangesConsumer(deps: {
  js: JetStreamClient;
  deliver: (delivery: Delivery) => Promise<Disposition>;
  senders: ChannelSenders;
  concurrency: number;
  logger: Logger;
}): PullWorkers {
  const { logger } = deps;
  return pullWorkers({
    js: deps.js,
    stream: WEBHOOK_TASK_CHANGES_CONSUMER.stream,
    durable: WEBHOOK_TASK_CHANGES_CONSUMER.config.durable_name,
    concurrency: deps.concurrency,
    logger,
    heartbeatMs: 10_000,
    errorDelayMs: 5_000,
    span: () => ({ name: 'task announcement delivery' }),
    async handle(msg) {
      const event = decodeOrLog(msg, TaskChangedEvent.decode, logger, 'task change');
      if (!event) return term;
      const deliveries = announcementDeliveries(event, deps.senders);
      if (deliveries.length === 0) return ack;
      const outcomes = await Promise.all(deliveries.map((d) => deps.deliver(d)));
      return settleAll(outcomes);
    },
  });
}

/**
 * One message for several deliveries: it comes back (nak) while any of them waits for its next attempt,
 * after the shortest wait; otherwise it is done.
 */
export function settleAll(outcomes: Disposition[]): Disposition {
  const naks = outcomes.filter((o): o is Extract<Disposition, { kind: 'nak' }> => o.kind === 'nak');
  if (naks.length > 0) return { kind: 'nak', delayMs: Math.min(...naks.map((n) => n.delayMs)) };
  return ack;
}
