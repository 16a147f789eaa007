import { SUBJECTS, traceHeaders, type JetStreamClient, type ObjectStore } from '@app/messaging';
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

/** RenderFinished / RenderStarted on the job's own subject, deduplicated by job id across redeliveries. */
export function natsFinishedPublisher(js: JetStreamClient): FinishedPublisher {
  return {
    async publish(event) {
      await js.publish(SUBJECTS.renderFinished(event.job_id), RenderFinished.encode(event).finish(), {
        msgID: `finished:${event.job_id}`,
        headers: traceHeaders(),
      });
    },
    async started(event) {
      await js.publish(SUBJECTS.renderStarted(event.job_id), RenderStarted.encode(event).finish(), {
        msgID: `started:${event.job_id}`,
        headers: traceHeaders(),
      });
    },
  };
}
