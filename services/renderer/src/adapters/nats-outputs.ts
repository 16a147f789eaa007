import { SUBJECTS, traceHeaders, type JetStreamClient, type ObjectStore } from '@app/messaging';
import { RenderFinished } from '@app/proto/render';
import type { FinishedPublisher, ResultSink } from '../application/ports.js';

/** Results go to the JetStream object store, never inside a message. */
export function objectStoreSink(store: ObjectStore): ResultSink {
  return {
    async put(name, body) {
      await store.putBlob({ name }, body);
    },
  };
}

/** RenderFinished on the job's own subject, deduplicated by job id across redeliveries. */
export function natsFinishedPublisher(js: JetStreamClient): FinishedPublisher {
  return {
    async publish(event) {
      await js.publish(SUBJECTS.renderFinished(event.job_id), RenderFinished.encode(event).finish(), {
        msgID: `finished:${event.job_id}`,
        headers: traceHeaders(),
      });
    },
  };
}
