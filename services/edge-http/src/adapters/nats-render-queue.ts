import { errors } from '@app/errors';
import { STREAMS, SUBJECTS, busStatus, isBusUnavailable, jetstreamManager, whileBusUnavailable, type BusStatus, type NatsConnection } from '@app/messaging';
import { type RenderJobPublisher } from '@app/render-contracts';
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
 * The outcome is a core message: one published while this edge's connection was down (its NATS node lost)
 * never reaches the subscription, so after a reconnect, and before giving up at the wait's end, the edge
 * reads it from RENDER_EVENTS, where the renderer stored it. Otherwise a render that succeeded, and is
 * charged, would be answered as failed.
 */
export function natsRenderQueue(nc: NatsConnection, jobs: RenderJobPublisher, bus: BusStatus = busStatus(nc)): RenderQueue {
  return {
    async submitAndWait(job, limits) {
      if (!bus.connected()) throw errors.serviceUnavailable();
      let shed = false;
      const finishedSubject = SUBJECTS.renderEvent('sync', 'finished', job.job_id);
      let resolve!: (f: RenderFinished) => void;
      let reject!: (e: unknown) => void;
      const outcome = new Promise<RenderFinished>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const finished = nc.subscribe(finishedSubject, {
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
      const stored = async (): Promise<RenderFinished | undefined> => {
        try {
          const jsm = await jetstreamManager(nc);
          const msg = await whileBusUnavailable(() => jsm.streams.getMessage(STREAMS.RENDER_EVENTS.name, { last_by_subj: finishedSubject }), 10_000);
          return msg ? RenderFinished.decode(msg.data) : undefined;
        } catch {
          return undefined;
        }
      };
      const stopListening = bus.onReconnect(() => {
        void stored().then((f) => f && resolve(f));
      });
      const waitTimer = setTimeout(() => {
        void stored().then((f) => (f ? resolve(f) : reject(bus.connected() ? new RenderWaitTimeout() : errors.serviceUnavailable())));
      }, limits.waitMs);
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
        stopListening();
        finished.unsubscribe();
        starts.unsubscribe();
      }
    },
  };
}
