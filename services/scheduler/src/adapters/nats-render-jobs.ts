import { announceReservationEnded } from '@app/admission-client';
import type { JetStreamClient } from '@app/messaging';
import type { RenderJobPublisher } from '@app/render-contracts';
import type { RenderJobs } from '../application/ports.js';

/**
 * Render jobs through the shared publisher (work queue, deduplicated by job id, large parameters by
 * reference); reservations of runs that got no job, on RENDER_EVENTS for auth-quota to release.
 */
export function natsRenderJobs(js: JetStreamClient, publisher: RenderJobPublisher): RenderJobs {
  return {
    publish: (job) => publisher.publish(job),
    async prepare(job) {
      const encoded = await publisher.encode(job);
      return { publish: () => publisher.publishEncoded(encoded) };
    },
    withoutJob: (e) => announceReservationEnded(js, { ...e, succeeded: false, origin: 'task' }),
  };
}
