import { RENDERER_JOBS_CONSUMER, traceContextOf, type JetStreamClient, type JsMsg } from '@app/messaging';
import { RenderJob } from '@app/proto/render';
import { SpanKind, withSpan } from '@app/telemetry';
import type { Logger } from '@app/logging';
import type { PerformRender } from '../application/perform-render.js';

/** How often a live render tells JetStream it is still working (well inside the consumer's ack wait). */
const HEARTBEAT_MS = 3_000;

/**
 * Pulls render jobs from the shared work queue. Each of `concurrency` workers asks for one message
 * only when it is idle, so a replica never holds jobs it cannot start (other replicas take them).
 */
export function renderJobsConsumer(deps: { js: JetStreamClient; perform: PerformRender; concurrency: number; logger: Logger }) {
  const { js, perform, logger } = deps;
  let running = false;
  const workers: Promise<void>[] = [];

  const handle = async (msg: JsMsg) => {
    let job: RenderJob;
    try {
      job = RenderJob.decode(msg.data);
    } catch (err) {
      logger.error({ err }, 'undecodable render job: dropped');
      msg.term();
      return;
    }
    const heartbeat = setInterval(() => msg.working(), HEARTBEAT_MS);
    try {
      const isLast = msg.info.deliveryCount >= RENDERER_JOBS_CONSUMER.config.max_deliver;
      const disposition = await withSpan(
        `render ${job.operation}`,
        {
          kind: SpanKind.CONSUMER,
          parent: traceContextOf(msg.headers),
          attributes: { 'render.job_id': job.job_id, 'render.delivery': msg.info.deliveryCount },
        },
        () => perform(job, { isLast }),
      );
      if (disposition.kind === 'retry') msg.nak(disposition.delayMs);
      else msg.ack();
    } catch (err) {
      logger.error({ err, jobId: job.job_id }, 'render job failed unexpectedly');
      msg.nak(1_000);
    } finally {
      clearInterval(heartbeat);
    }
  };

  const worker = async () => {
    const consumer = await js.consumers.get(RENDERER_JOBS_CONSUMER.stream, RENDERER_JOBS_CONSUMER.config.durable_name);
    while (running) {
      let msg: JsMsg | null = null;
      try {
        msg = await consumer.next({ expires: 2_000 });
      } catch (err) {
        if (!running) break;
        logger.warn({ err }, 'pulling render jobs failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (msg) await handle(msg);
    }
  };

  return {
    start() {
      running = true;
      for (let i = 0; i < deps.concurrency; i++) workers.push(worker());
    },
    /** Stops pulling and waits for the renders in flight. */
    async stop() {
      running = false;
      await Promise.allSettled(workers);
    },
  };
}
