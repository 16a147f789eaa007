import { outboxMessageId, type StoredEvent } from '@app/event-store';
import { SUBJECTS, headers, type JetStreamClient } from '@app/messaging';
import { TaskChangedEvent, TaskRunStartedEvent } from '@app/proto/scheduler';
import type { ChangeAnnouncement, TaskFailing, TaskRecovered, TaskRunCompared, TaskRunStarted } from '../domain/task/task.js';

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
    if (event.type === 'TaskRunCompared' || event.type === 'TaskFailing' || event.type === 'TaskRecovered') return publishChange(js, event);
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

/** The dashboard's view of a task's changes on the edge that serves its files. */
export function dashboardUrlOf(filesBaseUrl: string, taskId: number): string {
  const origin = filesBaseUrl.replace(/\/v1\/files\/?$/, '');
  return `${origin}/dashboard#tasks/${taskId}`;
}

const channelsOf = (announce: ChangeAnnouncement) =>
  (announce.notify ?? []).map((n) => (n.type === 'email' ? { type: n.type, to: n.to } : { type: n.type, url: n.url }));

/**
 * An announcement as a TaskChangedEvent on `scheduler.task.changed`, one message per event (its id): a
 * change (kind changed), a failing episode's start (failing) or its end (recovered).
 */
async function publishChange(js: JetStreamClient, event: StoredEvent): Promise<void> {
  const data = event.data as (TaskRunCompared | TaskFailing | TaskRecovered)['data'];
  const announce = data.announce;
  if (!announce) throw new Error(`${event.type} without an announcement is not relayed`);
  const url = (name: string | undefined) => (name ? `${announce.filesBaseUrl}${name}` : '');
  const common = {
    event_id: event.id,
    stream_id: event.streamId,
    version: event.version,
    task_id: data.taskId,
    run_id: data.runId,
    account_id: announce.accountId,
    webhook_url: announce.webhookUrl ?? '',
    webhook_signed: announce.webhookSigned,
    notify: channelsOf(announce),
    task_name: announce.taskName ?? '',
  };
  let message: TaskChangedEvent;
  if (event.type === 'TaskRunCompared') {
    const { change, comparedAt, taskId } = data as TaskRunCompared['data'];
    message = TaskChangedEvent.fromPartial({
      ...common,
      kind: 'changed',
      score: change.score,
      summary: change.summary,
      before: url(change.before),
      after: url(change.after),
      diff: url(change.diff),
      changed_unix_ms: comparedAt,
      dashboard_url: dashboardUrlOf(announce.filesBaseUrl, taskId),
    });
  } else if (event.type === 'TaskFailing') {
    const { failures, reason, failingAt, episodeId, taskId } = data as TaskFailing['data'];
    message = TaskChangedEvent.fromPartial({
      ...common,
      kind: 'failing',
      failures,
      reason,
      episode_id: episodeId,
      summary: `The monitor failed ${failures} runs in a row; last: ${reason}`,
      changed_unix_ms: failingAt,
      dashboard_url: dashboardUrlOf(announce.filesBaseUrl, taskId),
    });
  } else {
    const { recoveredAt, episodeId, taskId } = data as TaskRecovered['data'];
    message = TaskChangedEvent.fromPartial({
      ...common,
      kind: 'recovered',
      episode_id: episodeId,
      summary: 'The monitor works again: its last run succeeded.',
      changed_unix_ms: recoveredAt,
      dashboard_url: dashboardUrlOf(announce.filesBaseUrl, taskId),
    });
  }
  await js.publish(SUBJECTS.taskChanged, TaskChangedEvent.encode(message).finish(), { msgID: outboxMessageId(event) });
}
