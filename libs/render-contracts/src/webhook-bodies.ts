import { z } from 'zod';

/**
 * The JSON bodies of the webhooks the service sends, defined once: the dispatcher builds them (its types
 * are these schemas'), and the API reference (`/openapi.json`, under `webhooks`) describes them. Objects
 * are open: receivers must ignore fields they do not know.
 */

const seconds = (description: string) => z.number().int().describe(description);

export const RenderWebhookBody = z
  .looseObject({
    id: z.string().describe('The render id (as answered to async=true); also the webhook-id header.'),
    status: z.enum(['succeeded', 'failed']),
    file: z.string().nullable().describe('URL of the result, fetchable without the key until expires.'),
    expires: seconds('Unix seconds after which file is gone.').nullable(),
    created: seconds('Unix seconds.'),
    format: z.string().describe('The format of the result (png, pdf, markdown...).'),
    size: z.number().int().nullable().describe('Bytes of the result.'),
    task_id: z.string().optional().describe('The scheduled task whose run this render was.'),
    error: z.looseObject({ code: z.string(), message: z.string() }).optional().describe('Why the render failed.'),
  })
  .meta({ id: 'RenderWebhook', description: 'POSTed to webhook_url when an async render (or a task run) finishes.' });

export type RenderWebhookBody = z.infer<typeof RenderWebhookBody>;

export const TaskChangedWebhookBody = z
  .looseObject({
    type: z.literal('task.changed'),
    task_id: z.number().int(),
    run_id: z.string(),
    score: z.number().describe('Percent of differing pixels (visual) or changed characters (text).'),
    summary: z.string().describe('How much changed and where.'),
    before: z.string().nullable().describe('URL of the previous compared result.'),
    after: z.string().nullable().describe("URL of this run's compared result."),
    diff: z.string().nullable().describe('URL of the difference: a PNG with the changes marked (visual), a unified diff (text).'),
    created: seconds('Unix seconds of the comparison.'),
  })
  .meta({
    id: 'TaskChangedWebhook',
    description: "POSTed to the task query's webhook_url when a monitoring task's run changed; webhook-id is change-<run_id>.",
  });

export type TaskChangedWebhookBody = z.infer<typeof TaskChangedWebhookBody>;

export const TaskFailingWebhookBody = z
  .looseObject({
    type: z.literal('task.failing'),
    task_id: z.number().int(),
    run_id: z.string().describe('The run that made the task failing (its failing episode).'),
    failures: z.number().int().describe('Failed runs in a row (monitor.alert_after_failures).'),
    reason: z.string().describe("That run's error (code: message) or its comparison's summary."),
    summary: z.string(),
    dashboard: z.string().nullable().describe('URL of the task in the dashboard.'),
    created: seconds('Unix seconds of the failure.'),
  })
  .meta({
    id: 'TaskFailingWebhook',
    description: 'POSTed once per failing episode of a monitoring task (alert_after_failures failed runs in a row); webhook-id is failing-<run_id>.',
  });

export type TaskFailingWebhookBody = z.infer<typeof TaskFailingWebhookBody>;

export const TaskRecoveredWebhookBody = z
  .looseObject({
    type: z.literal('task.recovered'),
    task_id: z.number().int(),
    run_id: z.string().describe('The run that worked again.'),
    summary: z.string(),
    dashboard: z.string().nullable().describe('URL of the task in the dashboard.'),
    created: seconds('Unix seconds of the recovery.'),
  })
  .meta({
    id: 'TaskRecoveredWebhook',
    description: "POSTed once when a failing monitoring task's run works again; webhook-id is recovered-<run_id of the task.failing>.",
  });

export type TaskRecoveredWebhookBody = z.infer<typeof TaskRecoveredWebhookBody>;
