import { SCHEDULER_RUN_DISPATCH_CONSUMER, decodeOrLog, pullWorkers, term, type JetStreamClient } from '@app/messaging';
import type { Logger } from '@app/logging';
import { TaskRunStartedEvent } from '@app/proto/scheduler';
import type { DispatchRun } from '../../application/dispatch-run.js';

/** `scheduler.task.run-started` events (relayed from the store's outbox) → render jobs. */
export function runDispatchConsumer(deps: { js: JetStreamClient; dispatch: DispatchRun; concurrency: number; logger: Logger }) {
  const { logger } = deps;
  const { stream, config } = SCHEDULER_RUN_DISPATCH_CONSUMER;
  return pullWorkers({
    js: deps.js,
    stream,
    durable: config.durable_name,
    concurrency: deps.concurrency,
    // A minute starts its runs together and each takes milliseconds: pull them in one go.
    prefetch: true,
    logger,
    span: () => ({ name: 'dispatch task run' }),
    async handle(msg) {
      const event = decodeOrLog(msg, TaskRunStartedEvent.decode, logger, 'task event');
      if (!event?.run_id || !Number.isSafeInteger(event.task_id) || event.task_id <= 0) return term;
      const { task_id: taskId, run_id: runId } = event;
      const isLast = msg.info.deliveryCount >= config.max_deliver;
      return deps.dispatch({ taskId, runId }, { isLast });
    },
  });
}
