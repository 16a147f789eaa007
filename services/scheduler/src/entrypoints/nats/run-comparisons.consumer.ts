import { SCHEDULER_RUN_COMPARISONS_CONSUMER, ack, nak, type JetStreamClient } from '@app/messaging';
import type { Logger } from '@app/logging';
import type { FinishRun } from '../../application/finish-run.js';
import type { CompareRun } from '../../application/compare-run.js';
import { taskRenderOutcomes } from './task-runs.consumer.js';

/** A comparison that failed is delivered again after this long (it is recorded as failed after a few). */
const COMPARE_RETRY_MS = 2_000;
/** Keeps an outcome alive while its comparison waits for, or runs in, a worker thread (ack_wait is 30 s). */
const HEARTBEAT_MS = 10_000;

/**
 * Finished task renders (`render.task.finished.<job>`) once more, on a durable consumer of their own: a
 * monitoring task's run (or its confirming render) is compared with the last successful one. The outcome
 * is recorded first if the outcome consumer has not yet, so a comparison never waits on it. The
 * comparison runs in worker threads; one that fails comes back COMPARE_RETRY_MS later, a bounded number of
 * times (compare-run records it as failed), and the consumer's max_deliver bounds every other failure. A
 * scheduler killed mid-comparison leaves the message unacknowledged: it comes back after ack_wait, and the
 * run is compared, and a change announced, once (a run is compared once, by run id).
 */
export const runComparisonsConsumer = (deps: { js: JetStreamClient; finish: FinishRun; compare: CompareRun; concurrency: number; logger: Logger }) =>
  taskRenderOutcomes({
    ...deps,
    consumer: SCHEDULER_RUN_COMPARISONS_CONSUMER,
    span: 'compare task run',
    heartbeatMs: HEARTBEAT_MS,
    then: async (finished, delivery) => ((await deps.compare(finished, delivery)) === 'retry' ? nak(COMPARE_RETRY_MS) : ack),
  });
