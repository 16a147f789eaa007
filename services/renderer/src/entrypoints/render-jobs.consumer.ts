import { RENDERER_JOBS_CONSUMER, decodeOrLog, fairPullWorkers, term, type JetStreamClient, type PullWorkers } from '@app/messaging';
import { RenderJob } from '@app/proto/render';
import type { Logger } from '@app/logging';
import { trace } from '@app/telemetry';
import type { PerformRender } from '../application/perform-render.js';

/**
 * Jobs a renderer alone on the fleet holds waiting beyond its slots, so that the order they start in is
 * fair: when a slot frees, the held job of the account with the fewest renders running here starts first
 * (round robin among equals), whatever one account has queued. Enough for one account's whole in-flight
 * limit on the default plans, so another account's job is in hand when the next slot frees. A renderer with
 * peers holds none: a job held behind its busy slots would wait while a peer's slot sat free (and a
 * caller's render time out), so jobs then start in the order they came, into whichever slot frees first.
 */
export const JOBS_HELD_WAITING = 32;

/** How many jobs to hold: JOBS_HELD_WAITING while this renderer's slots are the fleet's, none beside peers. */
export const jobsHeldWaiting = (ownSlots: number, fleetSlots: number | undefined): number =>
  fleetSlots === undefined || fleetSlots <= ownSlots ? JOBS_HELD_WAITING : 0;

/**
 * Pulls render jobs from the shared work queue and runs `concurrency` at once. Fairness between accounts
 * is the order jobs start in (fairPullWorkers): up to JOBS_HELD_WAITING more jobs are held, and a freed
 * slot goes to the account with the fewest renders running. Sharing is work-conserving: an account
 * alone may fill every slot (up to its plan's renders in flight). A live job heartbeats well inside the
 * consumer's ack wait; a crashed renderer's jobs, held or running, come back to another one.
 */
export function renderJobsConsumer(deps: {
  js: JetStreamClient;
  perform: PerformRender;
  concurrency: number;
  /** The fleet's render slots, this renderer's included (undefined until heard). */
  fleetSlots: () => number | undefined;
  logger: Logger;
}): PullWorkers {
  const { perform, logger } = deps;
  return fairPullWorkers({
    js: deps.js,
    stream: RENDERER_JOBS_CONSUMER.stream,
    durable: RENDERER_JOBS_CONSUMER.config.durable_name,
    concurrency: deps.concurrency,
    lookahead: () => jobsHeldWaiting(deps.concurrency, deps.fleetSlots()),
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
