import { SUBJECTS, traceHeaders, type JetStreamClient, type RenderJobPublisher } from '@app/messaging';
import { RenderFinished } from '@app/proto/render';
import type { JobPublisher } from '../application/async-ports.js';

/** Async jobs to the RENDER_JOBS work queue; edge-decided finishes to RENDER_EVENTS. Both deduplicated by id. */
export function natsJobPublisher(js: JetStreamClient, jobs: RenderJobPublisher): JobPublisher {
  return {
    submit: (job) => jobs.publish(job),
    async announce(event) {
      await js.publish(SUBJECTS.renderFinished(event.job_id), RenderFinished.encode(event).finish(), {
        msgID: `finished:${event.job_id}`,
        headers: traceHeaders(),
      });
    },
  };
}
