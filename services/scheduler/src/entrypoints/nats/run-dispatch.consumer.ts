import { SCHEDULER_RUN_DISPATCH_CONSUMER, ack, pullWorkers, term, type JetStreamClient } from '@app/messaging';
import type { Logger } from '@app/logging';
import { TaskEventMessage } from '@app/proto/scheduler';
import { taskIdOfStream } from '../../domain/task/task.js';
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
      let taskId: number | undefined;
      let runId: unknown;
      let jobId: unknown;
      try {
        const event = TaskEventMessage.decode(msg.data);
        taskId = taskIdOfStream(event.stream_id);
        ({ runId, jobId } = JSON.parse(event.data_json) as { runId?: unknown; jobId?: unknown });
      } catch (err) {
        logger.error({ err }, 'undecodable task event: dropped');
      }
      if (taskId === undefined || typeof runId !== 'string') return term;
      // A prepared run starts with its job published: nothing is left to dispatch.
      if (typeof jobId === 'string') return ack;
      const isLast = msg.info.deliveryCount >= config.max_deliver;
      return deps.dispatch({ taskId, runId }, { isLast });
    },
  });
}
