import { outboxMessageId, type StoredEvent } from '@app/event-store';
import { SUBJECTS, headers, type JetStreamClient } from '@app/messaging';
import { TaskEventMessage } from '@app/proto/scheduler';

/** `TaskRunStarted` → `run-started`, `TaskCreated` → `created`. */
export function eventSubjectToken(type: string): string {
  return type
    .replace(/^Task/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

const TRACE_KEYS = ['traceparent', 'tracestate'] as const;

/**
 * What the outbox relay does with each stored event: publish it on the SCHEDULER stream under
 * `Nats-Msg-Id = <stream>:<version>`, so a re-publish after a crash is dropped by the broker.
 */
export function natsTaskEventPublisher(js: JetStreamClient): (event: StoredEvent) => Promise<void> {
  return async (event) => {
    const message = TaskEventMessage.encode({
      event_id: event.id,
      type: event.type,
      stream_id: event.streamId,
      version: event.version,
      global_position: event.globalPosition,
      recorded_unix_ms: event.recordedAt.getTime(),
      data_json: JSON.stringify(event.data),
    }).finish();
    const h = headers();
    for (const key of TRACE_KEYS) {
      const value = event.metadata[key];
      if (typeof value === 'string') h.set(key, value);
    }
    await js.publish(SUBJECTS.schedulerTaskEvent(eventSubjectToken(event.type)), message, {
      msgID: outboxMessageId(event),
      headers: h,
    });
  };
}
