import { outboxMessageId, type StoredEvent } from '@app/event-store';
import { SUBJECTS, headers, type JetStreamClient } from '@app/messaging';
import { TaskRunStartedEvent } from '@app/proto/scheduler';
import type { TaskRunStarted } from '../domain/task/task.js';

/** `TaskRunStarted` → `run-started`, `TaskCreated` → `created`. */
export function eventSubjectToken(type: string): string {
  return type
    .replace(/^Task/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

const TRACE_KEYS = ['traceparent', 'tracestate'] as const;

/**
 * What the outbox relay does with each event it relays (a run started at its due instant): publish it on
 * the SCHEDULER stream as a TaskRunStartedEvent under `Nats-Msg-Id = <stream>:<version>`, so a re-publish
 * after a crash is dropped by the broker.
 */
export function natsTaskEventPublisher(js: JetStreamClient): (event: StoredEvent) => Promise<void> {
  return async (event) => {
    if (event.type !== 'TaskRunStarted') throw new Error(`${event.type} is not a relayed task event`);
    const data = event.data as TaskRunStarted['data'];
    const message = TaskRunStartedEvent.encode({
      event_id: event.id,
      stream_id: event.streamId,
      version: event.version,
      recorded_unix_ms: event.recordedAt.getTime(),
      task_id: data.taskId,
      run_id: data.runId,
      due_unix_ms: data.dueAt,
      started_unix_ms: data.startedAt,
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
