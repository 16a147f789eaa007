import { SCHEDULER_TASK_RUNS_CONSUMER, ack, decodeOrLog, pullWorkers, term, type Disposition, type JetStreamClient } from '@app/messaging';
import type { Logger } from '@app/logging';
import { RenderFinished } from '@app/proto/render';
import type { FinishRun } from '../../application/finish-run.js';

interface TaskRenderOutcomes {
  js: JetStreamClient;
  consumer: { stream: string; config: { durable_name: string } };
  span: string;
  finish: FinishRun;
  concurrency: number;
  logger: Logger;
  /** Keeps a message alive while it is handled (a slow `then`). */
  heartbeatMs?: number;
  /** What follows the recorded outcome (default: nothing, the message is acknowledged). */
  then?: (finished: RenderFinished, delivery: number) => Promise<Disposition>;
}

/**
 * A durable consumer of finished task renders: each one's outcome is recorded (idempotent: appended once,
 * whichever consumer gets there first), then `then` decides what is left. A prepared run's render that
 * finishes before its start is recorded records it started (finish-run.ts).
 */
export function taskRenderOutcomes(deps: TaskRenderOutcomes) {
  const { stream, config } = deps.consumer;
  return pullWorkers({
    js: deps.js,
    stream,
    durable: config.durable_name,
    concurrency: deps.concurrency,
    logger: deps.logger,
    ...(deps.heartbeatMs ? { heartbeatMs: deps.heartbeatMs } : {}),
    span: () => ({ name: deps.span }),
    async handle(msg) {
      const finished = decodeOrLog(msg, RenderFinished.decode, deps.logger, 'render outcome');
      if (!finished) return term;
      await deps.finish(finished);
      return deps.then ? deps.then(finished, msg.info.deliveryCount) : ack;
    },
  });
}

/**
 * RenderFinished events of task runs (`render.task.>`): each run's outcome is recorded and acknowledged at
 * once. A monitoring run's comparison is not done here: it has its own consumer
 * (run-comparisons.consumer.ts), so no comparison holds an outcome back.
 */
export const taskRunsConsumer = (deps: { js: JetStreamClient; finish: FinishRun; concurrency: number; logger: Logger }) =>
  taskRenderOutcomes({ ...deps, consumer: SCHEDULER_TASK_RUNS_CONSUMER, span: 'record task run outcome' });
