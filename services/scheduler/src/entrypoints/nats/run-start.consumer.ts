import {
  SCHEDULER_RUN_DISPATCH_CONSUMER,
  SCHEDULER_RUN_PREPARE_CONSUMER,
  decodeOrLog,
  pullWorkers,
  term,
  type JetStreamClient,
  type JsMsg,
} from '@app/messaging';
import type { Disposition } from '@app/errors';
import type { Logger } from '@app/logging';
import { TaskRunStartedEvent } from '@app/proto/scheduler';
import { decodePrepareRequest, type PrepareRequest } from '../../application/prepare-request.js';

/** One trigger of a run's start: the shared consumer its messages come from, and what they carry. */
export interface RunStartTrigger<T> {
  consumer: { stream: string; config: { durable_name: string; max_deliver: number } };
  span: string;
  decode(msg: JsMsg, logger: Logger): T | undefined;
}

/** `scheduler.task.run-started` events (relayed from the store's outbox): claimed runs to dispatch now. */
export const dueTimeTrigger: RunStartTrigger<{ taskId: number; runId: string }> = {
  consumer: SCHEDULER_RUN_DISPATCH_CONSUMER,
  span: 'dispatch task run',
  decode(msg, logger) {
    const event = decodeOrLog(msg, TaskRunStartedEvent.decode, logger, 'task event');
    if (!event?.run_id || !Number.isSafeInteger(event.task_id) || event.task_id <= 0) return undefined;
    return { taskId: event.task_id, runId: event.run_id };
  },
};

/** `scheduler.run.prepare` requests: runs to prepare on this replica ahead of their due instant. */
export const aheadTrigger: RunStartTrigger<PrepareRequest> = {
  consumer: SCHEDULER_RUN_PREPARE_CONSUMER,
  span: 'prepare task run',
  decode(msg, logger) {
    const request = decodePrepareRequest(msg.data);
    if (!request) logger.error({ subject: msg.subject }, 'undecodable prepare request: dropped');
    return request;
  },
};

/**
 * A trigger's messages → runs started on this replica. The consumer is shared by every replica, so each
 * message reaches one of them and replicas split a minute's burst instead of racing for every run.
 */
export function runStartConsumer<T>(deps: {
  js: JetStreamClient;
  trigger: RunStartTrigger<T>;
  start: (request: T, attempt: { isLast: boolean }) => Promise<Disposition>;
  concurrency: number;
  logger: Logger;
}) {
  const { trigger, logger } = deps;
  const { stream, config } = trigger.consumer;
  return pullWorkers({
    js: deps.js,
    stream,
    durable: config.durable_name,
    concurrency: deps.concurrency,
    // A minute starts (or announces) its runs together and each takes milliseconds: pull them in one go.
    prefetch: true,
    logger,
    span: () => ({ name: trigger.span }),
    async handle(msg) {
      const request = trigger.decode(msg, logger);
      if (request === undefined) return term;
      return deps.start(request, { isLast: msg.info.deliveryCount >= config.max_deliver });
    },
  });
}
