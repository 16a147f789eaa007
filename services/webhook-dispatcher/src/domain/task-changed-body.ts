import type { TaskChangedEvent } from '@app/proto/scheduler';
import type { TaskChangedWebhookBody, TaskFailingWebhookBody, TaskRecoveredWebhookBody } from '@app/render-contracts';
import { kindOf } from './notification-messages.js';

/** The body of the task.changed webhook (its schema: @app/render-contracts). */
export type TaskChangedBody = TaskChangedWebhookBody;

/** The bodies of task.failing and task.recovered (their schemas: @app/render-contracts). */
export type TaskFailingBody = TaskFailingWebhookBody;
export type TaskRecoveredBody = TaskRecoveredWebhookBody;

export function taskChangedBody(e: TaskChangedEvent): TaskChangedBody {
  return {
    type: 'task.changed',
    task_id: e.task_id,
    run_id: e.run_id,
    score: e.score,
    summary: e.summary,
    before: e.before || null,
    after: e.after || null,
    diff: e.diff || null,
    created: Math.floor(e.changed_unix_ms / 1000),
  };
}

/** The webhook body of any announcement of a monitor. */
export function taskAnnouncementBody(e: TaskChangedEvent): TaskChangedBody | TaskFailingBody | TaskRecoveredBody {
  const created = Math.floor(Number(e.changed_unix_ms) / 1000);
  const dashboard = e.dashboard_url || null;
  switch (kindOf(e)) {
    case 'failing':
      return { type: 'task.failing', task_id: e.task_id, run_id: e.run_id, failures: e.failures, reason: e.reason, summary: e.summary, dashboard, created };
    case 'recovered':
      return { type: 'task.recovered', task_id: e.task_id, run_id: e.run_id, summary: e.summary, dashboard, created };
    default:
      return taskChangedBody(e);
  }
}

/** The webhook-id of a change: one per run that changed, the same on every attempt. */
export const taskChangedWebhookId = (e: TaskChangedEvent): string => `change-${e.run_id}`;

/**
 * The webhook-id of any announcement: a change's (per run), or a failing episode's start or end (per
 * episode: the run that tripped it), the same on every attempt.
 */
export function announcementId(e: TaskChangedEvent): string {
  const kind = kindOf(e);
  return kind === 'changed' ? taskChangedWebhookId(e) : `${kind}-${e.episode_id || e.run_id}`;
}

/** The delivery id of notify channel `index` of an announcement (its state's key, the same on every attempt). */
export const channelDeliveryId = (e: TaskChangedEvent, index: number): string => `${announcementId(e)}.notify-${index}`;
