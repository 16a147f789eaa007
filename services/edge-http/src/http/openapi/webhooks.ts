import { RenderWebhookBody, TaskChangedWebhookBody, TaskFailingWebhookBody, TaskRecoveredWebhookBody } from '@app/render-contracts';

/**
 * The webhooks the service sends (OpenAPI 3.1 `webhooks`): their bodies are the schemas the dispatcher
 * builds them from, and each carries the Standard Webhooks headers.
 */

const SIGNATURE_HEADERS = [
  { name: 'webhook-id', description: 'The same on every attempt of one delivery: deduplicate on it.' },
  { name: 'webhook-timestamp', description: 'Unix seconds of this attempt.' },
  {
    name: 'webhook-signature',
    description: 'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" keyed with the secret key>. Absent with webhook_signed=false.',
  },
  { name: 'x-service-signature', description: 'Hex HMAC-SHA256 of the raw body keyed with the secret key. Absent with webhook_signed=false.' },
].map((h) => ({ ...h, in: 'header', required: !h.name.endsWith('signature'), schema: { type: 'string' } }));

const webhook = (operationId: string, schemaId: string, summary: string, description: string) => ({
  post: {
    operationId,
    summary,
    description,
    parameters: SIGNATURE_HEADERS,
    // Authenticated by its signature (the headers above), not by a key the receiver holds.
    security: [],
    requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaId}` } } } },
    responses: {
      '200': { description: 'Received: any 2xx answer (within WEBHOOK_TIMEOUT_MS, 15 s) ends the delivery.' },
      '410': { description: 'Gone: no more attempts. Any other answer, a timeout or a refused connection is retried on the schedule.' },
    },
  },
});

/** The `webhooks` of the API description; the schemas are registered (components) by importing them. */
export function webhookDocs(): Record<string, unknown> {
  void [RenderWebhookBody, TaskChangedWebhookBody, TaskFailingWebhookBody, TaskRecoveredWebhookBody];
  return {
    'render.finished': webhook('renderFinished', 'RenderWebhook', 'An async render (or a task run) finished', 'Sent to webhook_url once per render, retried until a 2xx answer.'),
    'task.changed': webhook('taskChanged', 'TaskChangedWebhook', "A monitoring task's run changed", "Sent to the task query's webhook_url once per changed run."),
    'task.failing': webhook('taskFailing', 'TaskFailingWebhook', 'A monitoring task failed runs in a row', "Sent to the task query's webhook_url once per failing episode (monitor.alert_after_failures)."),
    'task.recovered': webhook('taskRecovered', 'TaskRecoveredWebhook', 'A failing monitoring task works again', "Sent to the task query's webhook_url once when a failing episode ends."),
  };
}
