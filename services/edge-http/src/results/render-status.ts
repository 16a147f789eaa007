import { AppError } from '@app/errors';
import type { WebhookState } from '@app/render-contracts';
import type { RenderStatusStore } from './ports.js';
import type { Clock } from '../application/ports.js';

export interface RenderStatusView {
  id: string;
  status: string;
  created: number;
  finished: number | null;
  file: string | null;
  expires: number | null;
  error: { code: string; message: string } | null;
  webhook?: { status: WebhookState['state']; attempts: number; last_attempt: number | null; next_attempt: number | null };
}

const seconds = (ms: number | undefined) => (ms === undefined ? null : Math.floor(ms / 1000));

/** GET /v1/renders/{id}: only the owning account sees a render; anyone else gets render_not_found. */
export function getRenderStatus(deps: { statuses: RenderStatusStore; clock: Clock }) {
  return async (input: { accountId: string; id: string; filesBaseUrl: string }): Promise<RenderStatusView> => {
    const r = await deps.statuses.get(input.id);
    if (!r || r.accountId !== input.accountId) throw new AppError('render_not_found', `No render with id ${input.id} was found.`);
    const view: RenderStatusView = {
      id: r.id,
      status: r.status,
      created: seconds(r.createdMs)!,
      finished: seconds(r.finishedMs),
      file: r.file ? `${input.filesBaseUrl}${r.file}` : null,
      expires: seconds(r.expiresMs),
      error: r.error ?? null,
    };
    if (r.webhookUrl) {
      const w = await deps.statuses.webhookState(r.id);
      view.webhook = {
        status: w?.state ?? 'pending',
        attempts: w?.attempts ?? 0,
        last_attempt: seconds(w?.lastAttemptUnixMs),
        next_attempt: seconds(w?.nextAttemptUnixMs),
      };
    }
    return view;
  };
}

export type GetRenderStatus = ReturnType<typeof getRenderStatus>;
