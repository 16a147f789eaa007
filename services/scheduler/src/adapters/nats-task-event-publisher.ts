import { outboxMessageId, type StoredEvent } from '@app/event-store';
import { SUBJECTS, headers, type JetStreamClient } from '@app/messaging';
import { TaskChangedEvent, TaskRunStartedEvent } from '@app/proto/scheduler';
import type { TaskRunCompared, TaskRunStarted } from '../domain/task/task.js';

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
    if (event.type === 'TaskRunCompared') return publishChange(js, event);
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

/** A change to announce, as a TaskChangedEvent on `scheduler.task.changed`: one message per change (its event's id). */
async function publishChange(js: JetStreamClient, event: StoredEvent): Promise<void> {
  const { taskId, runId, change, comparedAt, announce } = event.data as TaskRunCompared['data'];
  if (!announce) throw new Error('TaskRunCompared without an announcement is not relayed');
  const url = (name: string | undefined) => (name ? `${announce.filesBaseUrl}${name}` : '');
  const message = TaskChangedEvent.encode({
    event_id: event.id,
    stream_id: event.streamId,
    version: event.version,
    task_id: taskId,
    run_id: runId,
    account_id: announce.accountId,
    webhook_url: announce.webhookUrl,
    webhook_signed: announce.webhookSigned,
    score: change.score,
    summary: change.summary,
    before: url(change.before),
    after: url(change.after),
    diff: url(change.diff),
    changed_unix_ms: comparedAt,
  }).finish();
  await js.publish(SUBJECTS.taskChanged, message, { msgID: outboxMessageId(event) });
}
