import { SCHEDULER_TASK_RUNS_CONSUMER, ack, nak, decodeOrLog, pullWorkers, term, type JetStreamClient } from '@app/messaging';
import type { Logger } from '@app/logging';
import { RenderFinished } from '@app/proto/render';
import type { FinishRun } from '../../application/finish-run.js';

/**
 * RenderFinished events of task runs (`render.task.finished.<job>`): each run's outcome is recorded and
 * acknowledged at once. A monitoring run's comparison is not done here: it has its own consumer
 * (run-comparisons.consumer.ts), so no comparison holds an outcome back.
 */
export function taskRunsConsumer(deps: { js: JetStreamClient; finish: FinishRun; concurrency: number; logger: Logger }) {
  const { stream, config } = SCHEDULER_TASK_RUNS_CONSUMER;
  return pullWorkers({
    js: deps.js,
    stream,
    durable: config.durable_name,
    concurrency: deps.concurrency,
    logger: deps.logger,
    span: () => ({ name: 'record task run outcome' }),
    async handle(msg) {
      const finished = decodeOrLog(msg, RenderFinished.decode, deps.logger, 'render outcome');
      if (!finished) return term;
      // A prepared run's render may finish before its start is recorded: it is recorded a moment later.
      if ((await deps.finish(finished)) === 'not-started') return nak(500);
      return ack;
    },
  });
}
