import { SUBJECTS, publishUntilStored, renderOriginOf, traceHeaders, type JetStreamClient, type NatsConnection, type ObjectStore } from '@app/messaging';
import { RenderFinished, RenderStarted } from '@app/proto/render';
import type { FinishedPublisher, ResultSink } from '../application/ports.js';

/** Results go to the JetStream object store, never inside a message; their metadata carries the expiry. */
export function objectStoreSink(store: ObjectStore): ResultSink {
  return {
    async put(name, body, metadata) {
      await store.putBlob({ name, ...(metadata ? { metadata } : {}) }, body);
    },
  };
}

/**
 * RenderFinished / RenderStarted on the job's own subject (by its origin), deduplicated by job id across
 * redeliveries. A caller waiting for a sync render has its result as soon as the event is sent, so the event
 * is sent again while the stream cannot store it for a moment (a NATS node lost): its charge depends on it.
 */
export function natsFinishedPublisher(nc: NatsConnection, js: JetStreamClient): FinishedPublisher {
  return {
    tellTaken(event) {
      try {
        nc.publish(SUBJECTS.renderTaken(event.job_id), RenderFinished.encode(event).finish(), { headers: traceHeaders() });
      } catch {
        // A connection closing: the caller holds the outcome, and nobody needs this one.
      }
    },
    async publish(event, caller) {
      const data = RenderFinished.encode(event).finish();
      await publishUntilStored(js, SUBJECTS.renderEvent(renderOriginOf(event), 'finished', event.job_id), data, {
        msgID: `finished:${event.job_id}`,
        headers: traceHeaders(),
      });
      if (!caller?.caller_subject) return;
      try {
        // The waiting caller hears it on its one subscription; one that missed it reads the stored event.
        nc.publish(SUBJECTS.renderFinishedCall({ job_id: caller.job_id, caller_subject: caller.caller_subject }), data, { headers: traceHeaders() });
      } catch {
        // A connection closing: the event is stored, and the caller reads it back.
      }
    },
    async started(event) {
      // Only asynchronous renders announce their start (their status says "running").
      await publishUntilStored(js, SUBJECTS.renderEvent('async', 'started', event.job_id), RenderStarted.encode(event).finish(), {
        msgID: `started:${event.job_id}`,
        headers: traceHeaders(),
      });
    },
  };
}
