import { SCHEDULER_RUN_PREPARE_CONSUMER, ack, pullWorkers, term, type JetStreamClient } from '@app/messaging';
import type { Logger } from '@app/logging';
import type { RunPreparation } from '../../application/prepare-runs.js';
import { decodePrepareRequest } from '../../adapters/nats-run-prepare-requests.js';

/** `scheduler.run.prepare` requests → runs prepared on this replica (each request reaches one replica). */
export function runPrepareConsumer(deps: { js: JetStreamClient; preparation: RunPreparation; concurrency: number; logger: Logger }) {
  const { stream, config } = SCHEDULER_RUN_PREPARE_CONSUMER;
  return pullWorkers({
    js: deps.js,
    stream,
    durable: config.durable_name,
    concurrency: deps.concurrency,
    // A minute announces its runs together and each takes milliseconds: pull them in one go.
    prefetch: true,
    logger: deps.logger,
    span: () => ({ name: 'prepare task run' }),
    async handle(msg) {
      const request = decodePrepareRequest(msg.data);
      if (!request) {
        deps.logger.error('undecodable prepare request: dropped');
        return term;
      }
      await deps.preparation.prepare(request);
      return ack;
    },
  });
}
