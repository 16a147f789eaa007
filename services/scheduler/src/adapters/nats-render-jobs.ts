import { SUBJECTS, traceHeaders, type JetStreamClient } from '@app/messaging';
import { RenderJob } from '@app/proto/render';
import type { RenderJobs } from '../application/ports.js';

/** Render jobs on the RENDER_JOBS work queue, deduplicated by job id (as the edge publishes them). */
export function natsRenderJobs(js: JetStreamClient): RenderJobs {
  return {
    async publish(job) {
      await js.publish(SUBJECTS.renderJobRequested, RenderJob.encode(job).finish(), {
        msgID: job.job_id,
        headers: traceHeaders(),
      });
    },
  };
}
