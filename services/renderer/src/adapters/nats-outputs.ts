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
    async publish(event) {
      await publishUntilStored(js, SUBJECTS.renderEvent(renderOriginOf(event), 'finished', event.job_id), RenderFinished.encode(event).finish(), {
        msgID: `finished:${event.job_id}`,
        headers: traceHeaders(),
      });
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
