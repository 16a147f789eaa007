import { errors } from '@app/errors';
import { SUBJECTS, busStatus, isBusUnavailable, type BusStatus, type NatsConnection, type RenderJobPublisher } from '@app/messaging';
import { RenderFinished } from '@app/proto/render';
import type { RenderQueue } from '../application/ports.js';
import { RenderNotStarted, RenderWaitTimeout } from '../application/render-sync.js';

/** Answers to a renderer asking to start a job (`renderer.start.<job_id>`). */
const GO = new TextEncoder().encode('go');
const SHED = new TextEncoder().encode('shed');

/**
 * Render jobs go to the RENDER_JOBS work queue (deduplicated by job id, large parameters by reference); the outcome comes back on the
 * job's own finished subject, which the edge subscribes to before publishing. The job asks for a start
 * confirmation: a renderer starts it only after this edge said "go" on the job's start subject. If none
 * asked within `startWithinMs` (every slot busy, or no renderer alive), the edge sheds the job: it answers
 * the caller at once and any later start request gets "shed" (or no responders), so it is never rendered.
 */
export function natsRenderQueue(nc: NatsConnection, jobs: RenderJobPublisher, bus: BusStatus = busStatus(nc)): RenderQueue {
  return {
    async submitAndWait(job, limits) {
      if (!bus.connected()) throw errors.serviceUnavailable();
      let shed = false;
      let resolve!: (f: RenderFinished) => void;
      let reject!: (e: unknown) => void;
      const outcome = new Promise<RenderFinished>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const finished = nc.subscribe(SUBJECTS.renderEvent('sync', 'finished', job.job_id), {
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
      const startTimer = setTimeout(() => {
        shed = true;
        reject(new RenderNotStarted());
      }, limits.startWithinMs);
      const starts = nc.subscribe(SUBJECTS.renderStart(job.job_id), {
        callback: (err, msg) => {
          if (err) return;
          if (!shed) clearTimeout(startTimer);
          msg.respond(shed ? SHED : GO);
        },
      });
      const waitTimer = setTimeout(() => reject(bus.connected() ? new RenderWaitTimeout() : errors.serviceUnavailable()), limits.waitMs);
      try {
        try {
          await jobs.publish({ ...job, confirm_start: true });
        } catch (err) {
          if (isBusUnavailable(err) || !bus.connected()) throw errors.serviceUnavailable(err);
          throw err;
        }
        return await outcome;
      } finally {
        shed = true;
        clearTimeout(startTimer);
        clearTimeout(waitTimer);
        finished.unsubscribe();
        starts.unsubscribe();
      }
    },
  };
}
