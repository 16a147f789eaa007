import { SUBJECTS, traceHeaders, type JetStreamClient } from '@app/messaging';
import { RenderFinished, RenderJob } from '@app/proto/render';
import type { JobPublisher } from '../application/async-ports.js';

/** Async jobs to the RENDER_JOBS work queue; edge-decided finishes to RENDER_EVENTS. Both deduplicated by id. */
export function natsJobPublisher(js: JetStreamClient): JobPublisher {
  return {
    async submit(job) {
      await js.publish(SUBJECTS.renderJobRequested, RenderJob.encode(job).finish(), { msgID: job.job_id, headers: traceHeaders() });
    },
    async announce(event) {
      await js.publish(SUBJECTS.renderFinished(event.job_id), RenderFinished.encode(event).finish(), {
        msgID: `finished:${event.job_id}`,
        headers: traceHeaders(),
      });
    },
  };
}
