import { RENDERER_JOBS_CONSUMER, decodeOrLog, pullWorkers, term, type JetStreamClient, type PullWorkers } from '@app/messaging';
import { RenderJob } from '@app/proto/render';
import type { Logger } from '@app/logging';
import { trace } from '@app/telemetry';
import type { PerformRender } from '../application/perform-render.js';

/**
 * Pulls render jobs from the shared work queue: each of `concurrency` workers takes one job only when
 * idle, so a replica never holds jobs it cannot start (other replicas take them). A live render
 * heartbeats well inside the consumer's ack wait; a crashed renderer's job comes back to another one.
 */
export function renderJobsConsumer(deps: { js: JetStreamClient; perform: PerformRender; concurrency: number; logger: Logger }): PullWorkers {
  const { perform, logger } = deps;
  return pullWorkers({
    js: deps.js,
    stream: RENDERER_JOBS_CONSUMER.stream,
    durable: RENDERER_JOBS_CONSUMER.config.durable_name,
    concurrency: deps.concurrency,
    logger,
    heartbeatMs: 3_000,
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
