import { randomBytes } from 'node:crypto';
import { errors } from '@app/errors';
import { STREAMS, SUBJECTS, busStatus, isBusUnavailable, jetstreamManager, whileBusUnavailable, type BusStatus, type NatsConnection, type Subscription } from '@app/messaging';
import { type RenderJobPublisher } from '@app/render-contracts';
import { RenderFinished, RenderHandOver } from '@app/proto/render';
import type { RenderQueue, RenderWaitOutcome } from '../application/ports.js';
import { RenderAbandoned, RenderNotStarted, RenderWaitTimeout } from '../application/render-sync.js';

/** Answers to a renderer asking to start a job (`<caller subject>.<job_id>.start`). */
const GO = new TextEncoder().encode('go');
const SHED = new TextEncoder().encode('shed');
/** Answers to a renderer handing over a result (`<caller subject>.<job_id>.result`). */
const TAKEN = new TextEncoder().encode('taken');
const REFUSED = new TextEncoder().encode('refused');

/** What a renderer asks or tells the caller waiting for one job: to start it, to take its result, how it ended. */
interface JobCalls {
  start(): Uint8Array;
  result(data: Uint8Array): Uint8Array;
  finished(data: Uint8Array): void;
}

/**
 * One subscription for every job this edge waits for (`<caller subject>.<job_id>.start`, `.result` and
 * `.finished`), made once instead of one per job: a job costs no subscription of its own (on a cluster,
 * none to spread to the other servers before the renderer asks). A question about a job not waited for
 * (any more) is answered as a wait that ended would answer it: shed, refused.
 */
function renderCalls(nc: NatsConnection) {
  const callerSubject = SUBJECTS.renderCaller(randomBytes(12).toString('base64url').replace(/[^A-Za-z0-9]/g, 'x'));
  const waiting = new Map<string, JobCalls>();
  let subscription: Subscription | undefined;
  const listen = () => {
    subscription ??= nc.subscribe(SUBJECTS.renderCallsTo(callerSubject), {
      callback: (err, msg) => {
        if (err) return;
        // <caller subject>.<job_id>.<start|result|finished>
        const call = msg.subject.slice(callerSubject.length + 1);
        const dot = call.lastIndexOf('.');
        const job = waiting.get(call.slice(0, dot));
        const kind = call.slice(dot + 1);
        if (kind === 'finished') job?.finished(msg.data);
        else if (kind === 'result') msg.respond(job ? job.result(msg.data) : REFUSED);
        else msg.respond(job ? job.start() : SHED);
      },
    });
  };
  return {
    callerSubject,
    /** Listens for the calls about `jobId` until the returned function is called. */
    await(jobId: string, calls: JobCalls): () => void {
      listen();
      waiting.set(jobId, calls);
      return () => {
        if (waiting.get(jobId) === calls) waiting.delete(jobId);
      };
    },
    /** The outcome of a job whose wait was abandoned after it started, for up to `boundMs`: handed to `late`. */
    awaitLate(jobId: string, boundMs: number, late: (f: RenderFinished) => void): void {
      const bound = setTimeout(() => waiting.delete(jobId), Math.max(0, boundMs));
      bound.unref();
      waiting.set(jobId, {
        start: () => SHED,
        result: () => REFUSED,
        finished: (data) => {
          clearTimeout(bound);
          waiting.delete(jobId);
          try {
            late(RenderFinished.decode(data));
          } catch {
            // Not an outcome: nothing to discard.
          }
        },
      });
    },
  };
}

/**
 * Render jobs go to the RENDER_JOBS work queue (deduplicated by job id, large parameters by reference),
 * naming this edge's caller subject, where it listens for every job it waits for (renderCalls). The outcome
 * comes back there: with the result's bytes on the job's hand-over subject (RenderHandOver: a result that
 * fits in a message, taken only while the caller waits; nothing of it is stored), or else on its finished
 * subject, told by the renderer once it stored the event (and the result). The job asks for a
 * start confirmation: a renderer starts it only after this edge said "go" on the job's start subject. If
 * none asked within `startWithinMs` (every slot busy, or no renderer alive), the edge sheds the job: it
 * answers the caller at once and any later start request gets "shed" (or, the edge gone, no responders), so
 * it is never rendered.
 * The outcome is a core message: one published while this edge's connection was down (its NATS node lost)
 * never reaches the subscription, so after a reconnect, and before giving up at the wait's end, the edge
 * reads it from RENDER_EVENTS, where the renderer stored it. Otherwise a render that succeeded, and is
 * charged, would be answered as failed. The wait is abandoned at once when the bus is judged down (503
 * service_unavailable: nothing behind the wait can answer) or the caller is gone (`signal`: a job not
 * started yet is shed, a started one's outcome goes to `discard` when it comes, within the wait's bound),
 * even while the job's publish is still unanswered.
 */
export function natsRenderQueue(nc: NatsConnection, jobs: RenderJobPublisher, bus: BusStatus = busStatus(nc)): RenderQueue & { callerSubject: string } {
  const calls = renderCalls(nc);
  return {
    /** Where renderers ask this edge about the jobs it waits for (RenderJob.caller_subject). */
    callerSubject: calls.callerSubject,
    async submitAndWait(job, limits) {
      if (!bus.connected()) throw errors.serviceUnavailable();
      if (limits.signal?.aborted) throw new RenderAbandoned();
      let shed = false;
      let started = false;
      let abandoned = false;
      const finishedSubject = SUBJECTS.renderEvent('sync', 'finished', job.job_id);
      /** The wait has its outcome (or gave up): a result handed over now is refused. */
      let settled = false;
      let resolve!: (o: RenderWaitOutcome) => void;
      let reject!: (e: unknown) => void;
      const outcome = new Promise<RenderWaitOutcome>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const startTimer = setTimeout(() => {
        shed = true;
        reject(new RenderNotStarted());
      }, limits.startWithinMs);
      /** A result handed over is taken only while the caller waits; otherwise the renderer stores it (and discard removes it). */
      const take = (data: Uint8Array): boolean => {
        if (abandoned || settled) return false;
        let handOver: RenderHandOver;
        try {
          handOver = RenderHandOver.decode(data);
        } catch {
          return false;
        }
        if (!handOver.finished) return false;
        settled = true;
        resolve({ finished: handOver.finished, body: handOver.body });
        return true;
      };
      // What the renderer asks or tells this caller: to start the job, to take its result, how it ended.
      const stopAwaiting = calls.await(job.job_id, {
        result: (data) => (take(data) ? TAKEN : REFUSED),
        finished: (data) => {
          try {
            const f = RenderFinished.decode(data);
            if (abandoned) limits.discard?.(f);
            settled = true;
            resolve({ finished: f });
          } catch (decodeError) {
            reject(decodeError);
          }
        },
        start: () => {
          if (!shed) {
            clearTimeout(startTimer);
            started = true;
          }
          return shed ? SHED : GO;
        },
      });
      const stopWatchingBus = bus.onDown(() => reject(errors.serviceUnavailable()));
      const onAbandoned = () => {
        abandoned = true;
        reject(new RenderAbandoned());
      };
      limits.signal?.addEventListener('abort', onAbandoned, { once: true });
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
        void stored().then((f) => f && resolve({ finished: f }));
      });
      const waitTimer = setTimeout(() => {
        void stored().then((f) => (f ? resolve({ finished: f }) : reject(bus.connected() ? new RenderWaitTimeout() : errors.serviceUnavailable())));
      }, limits.waitMs);
      /** Stops listening: at once, or, for a render abandoned after it started, once its outcome came (discarded) or the wait's bound passed. */
      const stop = () => {
        clearTimeout(startTimer);
        stopListening();
        stopAwaiting();
        clearTimeout(waitTimer);
        if (abandoned && started) calls.awaitLate(job.job_id, limits.waitMs, (f) => limits.discard?.(f));
      };
      try {
        const published = jobs.publish({ ...job, confirm_start: true, caller_subject: calls.callerSubject }).catch((err: unknown) => {
          throw isBusUnavailable(err) || !bus.connected() ? errors.serviceUnavailable(err) : err;
        });
        // What ends the wait (the bus judged down, the caller gone, no start in time) ends it during the
        // publish too: a publish to a server that stopped answering would hold the caller to its deadline.
        await Promise.race([published, outcome]);
        return await outcome;
      } finally {
        shed = true;
        settled = true;
        stopWatchingBus();
        limits.signal?.removeEventListener('abort', onAbandoned);
        stop();
      }
    },
  };
}
