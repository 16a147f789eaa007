import {
  SUBJECTS,
  WEBHOOK_DELIVERIES_CONSUMER,
  WEBHOOK_TASK_RUN_DELIVERIES_CONSUMER,
  ack,
  decodeOrLog,
  pullWorkers,
  term,
  type JetStreamClient,
  type PullWorkers,
} from '@app/messaging';
import { RenderFinished } from '@app/proto/render';
import { trace } from '@app/telemetry';
import type { Logger } from '@app/logging';
import type { DeliverWebhook } from '../application/deliver-webhook.js';

/** Whose conclusions a consumer delivers: async API renders, or task runs (each its own durable consumer). */
const CONSUMERS = { async: WEBHOOK_DELIVERIES_CONSUMER, task: WEBHOOK_TASK_RUN_DELIVERIES_CONSUMER } as const;

/**
 * Pulls the conclusions of async renders (the renderer's `finished`, the edge's `cache-hit` and
 * `abandoned`), or of task runs, from the dispatcher replicas' shared durable consumer; `concurrency` workers
 * each ask for one message only when idle. The disposition is JetStream's: ack (done), nak(delay) (the
 * next attempt's time), term (stop). An attempt in progress heartbeats well inside the ack wait, so it
 * is never redelivered elsewhere while it runs.
 */
export function deliveriesConsumer(deps: {
  js: JetStreamClient;
  origin: keyof typeof CONSUMERS;
  deliver: DeliverWebhook;
  concurrency: number;
  logger: Logger;
}): PullWorkers {
  const { deliver, logger } = deps;
  const consumer = CONSUMERS[deps.origin];
  return pullWorkers({
    js: deps.js,
    stream: consumer.stream,
    durable: consumer.config.durable_name,
    concurrency: deps.concurrency,
    logger,
    heartbeatMs: 10_000,
    errorDelayMs: 5_000,
    span: () => ({ name: 'webhook delivery' }),
    async handle(msg) {
      // An async render's start concerns its status, not its webhook.
      if (SUBJECTS.renderEventKindOf(msg.subject) === 'started') return ack;
      const event = decodeOrLog(msg, RenderFinished.decode, logger, 'finished render');
      if (!event) return term;
      if (!event.webhook_url) return ack;
      trace.getActiveSpan()?.setAttribute('render.job_id', event.job_id);
      // The domain's disposition has the shape of the transport's.
      return deliver(event);
    },
  });
}
