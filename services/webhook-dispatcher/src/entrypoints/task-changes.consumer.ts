import { WEBHOOK_TASK_CHANGES_CONSUMER, ack, decodeOrLog, pullWorkers, term, type JetStreamClient, type PullWorkers } from '@app/messaging';
import { TaskChangedEvent } from '@app/proto/scheduler';
import type { Logger } from '@app/logging';
import type { Delivery } from '../application/deliver-webhook.js';
import type { Disposition } from '@app/errors';
import { taskChangedBody, taskChangedWebhookId } from '../domain/task-changed-body.js';

/**
 * Changes of monitoring tasks (`scheduler.task.changed`, one message per change) delivered as the
 * task.changed webhook, through the same signed, retried delivery as render webhooks.
 */
export function taskChangesConsumer(deps: {
  js: JetStreamClient;
  deliver: (delivery: Delivery) => Promise<Disposition>;
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
    span: () => ({ name: 'task change webhook delivery' }),
    async handle(msg) {
      const event = decodeOrLog(msg, TaskChangedEvent.decode, logger, 'task change');
      if (!event) return term;
      if (!event.webhook_url) return ack;
      return deps.deliver({
        id: taskChangedWebhookId(event),
        accountId: event.account_id,
        url: event.webhook_url,
        signed: event.webhook_signed,
        body: taskChangedBody(event),
      });
    },
  });
}
