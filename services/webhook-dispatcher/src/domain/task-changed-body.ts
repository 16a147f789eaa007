import type { TaskChangedEvent } from '@app/proto/scheduler';
import type { TaskChangedWebhookBody } from '@app/render-contracts';

/** The body of the task.changed webhook (its schema: @app/render-contracts). */
export type TaskChangedBody = TaskChangedWebhookBody;

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

/** The webhook-id of a change: one per run that changed, the same on every attempt. */
export const taskChangedWebhookId = (e: TaskChangedEvent): string => `change-${e.run_id}`;
