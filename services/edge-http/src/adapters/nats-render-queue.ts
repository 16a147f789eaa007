import { SUBJECTS, type NatsConnection, type RenderJobPublisher } from '@app/messaging';
import { RenderFinished } from '@app/proto/render';
import type { RenderQueue } from '../application/ports.js';
import { RenderWaitTimeout } from '../application/render-sync.js';

/**
 * Render jobs go to the RENDER_JOBS work queue (deduplicated by job id, large parameters by reference);
 * the outcome comes back on the job's own finished subject, which the edge subscribes to before publishing.
 */
export function natsRenderQueue(nc: NatsConnection, jobs: RenderJobPublisher): RenderQueue {
  return {
    async submitAndWait(job, waitMs) {
      let resolve!: (f: RenderFinished) => void;
      let reject!: (e: unknown) => void;
      const outcome = new Promise<RenderFinished>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const sub = nc.subscribe(SUBJECTS.renderFinished(job.job_id), {
        max: 1,
        callback: (err, msg) => {
          if (err) reject(err);
          else {
            try {
              resolve(RenderFinished.decode(msg.data));
            } catch (decodeError) {
              reject(decodeError);
            }
          }
        },
      });
      const timer = setTimeout(() => reject(new RenderWaitTimeout()), waitMs);
      try {
        await jobs.publish(job);
        return await outcome;
      } finally {
        clearTimeout(timer);
        sub.unsubscribe();
      }
    },
  };
}
