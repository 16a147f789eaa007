import type { RenderFinished } from '@app/proto/render';
import type { RenderWebhookBody } from '@app/render-contracts';

/** The body of a render's webhook (its schema: @app/render-contracts). */
export type WebhookBody = RenderWebhookBody;

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * The decided webhook body of a finished render. `file` is set only for a result kept as a file (async
 * results and cache entries); a transient result has no URL.
 */
export function webhookBody(e: RenderFinished, fallbackFilesBaseUrl: string | undefined): WebhookBody {
  const succeeded = e.status === 'succeeded' && e.result !== undefined;
  const base = e.files_base_url || fallbackFilesBaseUrl;
  const kept = succeeded && e.placement !== undefined && base !== undefined;
  const body: WebhookBody = {
    id: e.job_id,
    status: succeeded ? 'succeeded' : 'failed',
    file: kept ? `${base}${e.result!.object_name}` : null,
    expires: kept ? seconds(e.result!.expires_unix_ms) : null,
    created: seconds(e.created_unix_ms || e.started_unix_ms),
    format: e.format,
    size: succeeded ? e.result!.size : null,
  };
  if (e.origin === 'task' && e.task_id) body.task_id = e.task_id;
  if (!succeeded) body.error = { code: e.error?.code || 'render_failed', message: e.error?.message || 'The render failed.' };
  return body;
}
