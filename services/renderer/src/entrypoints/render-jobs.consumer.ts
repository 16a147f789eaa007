import { RENDERER_JOBS_CONSUMER, decodeOrLog, fairPullWorkers, term, type JetStreamClient, type PullWorkers } from '@app/messaging';
import { RenderJob } from '@app/proto/render';
import type { Logger } from '@app/logging';
import { trace } from '@app/telemetry';
import type { PerformRender } from '../application/perform-render.js';

/**
 * Pulls render jobs from the shared work queue and runs `concurrency` at once, taking a job only into a
 * free slot, so waiting jobs stay in the queue for whichever renderer frees one first (fairness between
 * accounts is auth-quota's cap on each account's renders in flight). A live job heartbeats well inside
 * the consumer's ack wait; a crashed renderer's jobs come back to another one.
 */
export function renderJobsConsumer(deps: { js: JetStreamClient; perform: PerformRender; concurrency: number; logger: Logger }): PullWorkers {
  const { perform, logger } = deps;
  return fairPullWorkers({
    js: deps.js,
    stream: RENDERER_JOBS_CONSUMER.stream,
    durable: RENDERER_JOBS_CONSUMER.config.durable_name,
    concurrency: deps.concurrency,
    // A job is taken only when a slot is free: one held waiting behind this renderer's busy slots would
    // wait while another renderer sat idle (and a synchronous render is shed if it does not start soon).
    lookahead: 0,
    logger,
    heartbeatMs: 3_000,
    keyOf: (msg) => RenderJob.decode(msg.data).account_id,
    span: (msg) => ({ name: 'render job', attributes: { 'messaging.subject': msg.subject } }),
    async handle(msg) {
      const job = decodeOrLog(msg, RenderJob.decode, logger, 'render job');
      if (!job) return term;
      trace.getActiveSpan()?.updateName(`render ${job.operation}`);
      trace.getActiveSpan()?.setAttribute('render.job_id', job.job_id);
      const isLast = msg.info.deliveryCount >= RENDERER_JOBS_CONSUMER.config.max_deliver;
      return perform(job, { isLast });
    },
  });
}
