import { SUBJECTS, traceHeaders, type JetStreamClient } from '@app/messaging';
import { type RenderJobPublisher } from '@app/render-contracts';
import { RenderFinished } from '@app/proto/render';
import type { JobPublisher } from '../ports.js';

/**
 * Async jobs to the RENDER_JOBS work queue; the edge's own conclusions of async renders (answered from the
 * cache, abandoned by the watchdog) to RENDER_EVENTS under its own events. Deduplicated by job id: a job
 * has one conclusion, whoever reaches it first.
 */
export function natsJobPublisher(js: JetStreamClient, jobs: RenderJobPublisher): JobPublisher {
  return {
    submit: (job) => jobs.publish(job),
    async announce(event, kind) {
      await js.publish(SUBJECTS.renderEvent('async', kind, event.job_id), RenderFinished.encode(event).finish(), {
        msgID: `finished:${event.job_id}`,
        headers: traceHeaders(),
      });
    },
  };
}
