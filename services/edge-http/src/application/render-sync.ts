import { AppError, errors, isErrorCode } from '@app/errors';
import type { RenderParams, ResultPlacement } from '@app/proto/render';
import { checkRenderTargets } from '@app/net-guard';
import { renderBudgetMs, timeoutSecondsOf, type Operation } from '@app/render-params';
import type { Clock, RenderQueue, ResultStore, TargetGuard } from './ports.js';

export interface RenderOutcome {
  body: Uint8Array;
  contentType: string;
  extension: string;
  headers: Record<string, string>;
  /** Set when the result is kept as a file (placement given): its object name and expiry. */
  kept?: { objectName: string; expiresUnixMs: number };
}

export class RenderWaitTimeout extends Error {
  constructor() {
    super('No render outcome arrived in time');
    this.name = 'RenderWaitTimeout';
  }
}

/** The caller went away before the render ended: the wait was abandoned (the job shed if it had not started). */
export class RenderAbandoned extends Error {
  constructor() {
    super('The caller went away before the render ended');
    this.name = 'RenderAbandoned';
  }
}

/** No renderer started the job in time (every slot busy, or none alive): it was shed, unrendered. */
export class RenderNotStarted extends Error {
  constructor() {
    super('No renderer started the job in time');
    this.name = 'RenderNotStarted';
  }
}

/**
 * A synchronous render: check the target, publish the job, wait for a renderer to start it (bounded by
 * `startWithinMs`: past it the answer is 503 renderer_unavailable at once, and the job is never rendered
 * nor charged), then for its outcome (bounded by the render's timeout), with the result's bytes when the
 * renderer handed them over, or else read from the object store. With a placement the result is kept there as a file (a cache entry); otherwise it is removed once
 * read. When its caller goes away (`callerGone`) the wait ends at once: a job not started is never
 * rendered, a started one's result is removed when it comes.
 */
export function renderSync(deps: {
  queue: RenderQueue;
  results: ResultStore;
  guard: TargetGuard;
  clock: Clock;
  waitMarginMs: number;
  /** How long the job may wait for a renderer to start it before it is shed (503). */
  startWithinMs: number;
  newId: () => string;
  /** Told of every shed job (a metric). */
  onShed?: () => void;
}) {
  return async (input: {
    accountId: string;
    operation: Operation;
    params: RenderParams;
    placement?: ResultPlacement;
    /** The quota reservation the job carries (its settler is the caller's answer, not the job). */
    reservationId?: string | undefined;
    /** Aborted when the caller is gone. */
    callerGone?: AbortSignal | undefined;
  }): Promise<RenderOutcome> => {
    const { params } = input;
    await checkRenderTargets(params, (url, parameter) => deps.guard.check(url, parameter));
    const timeoutSeconds = timeoutSecondsOf(params);
    const budgetMs = renderBudgetMs(input.operation, params);
    const now = deps.clock.now().getTime();
    const jobId = deps.newId();
    let waited;
    try {
      waited = await deps.queue.submitAndWait(
        {
          job_id: jobId,
          account_id: input.accountId,
          operation: input.operation,
          params,
          deadline_unix_ms: now + budgetMs,
          created_unix_ms: now,
          origin: 'api',
          placement: input.placement,
          reservation_id: input.reservationId,
        },
        {
          startWithinMs: deps.startWithinMs,
          waitMs: budgetMs + deps.waitMarginMs,
          ...(input.callerGone ? { signal: input.callerGone } : {}),
          discard: (late) => {
            if (late.result?.object_name && !input.placement) void deps.results.remove(late.result.object_name).catch(() => undefined);
          },
        },
      );
    } catch (err) {
      if (err instanceof RenderAbandoned) throw new AppError('render_failed', 'The caller went away before the render ended.');
      if (err instanceof RenderWaitTimeout) throw errors.renderTimeout(timeoutSeconds);
      if (err instanceof RenderNotStarted) {
        deps.onShed?.();
        throw errors.rendererUnavailable(Math.max(1, Math.ceil(deps.startWithinMs / 1000)));
      }
      throw err;
    }
    const { finished, body: handedOver } = waited;
    if (finished.status !== 'succeeded' || !finished.result) {
      const code = finished.error?.code;
      throw isErrorCode(code)
        ? new AppError(code, finished.error?.message || 'The render failed.', { details: finished.error?.details })
        : new AppError('render_failed', 'The render failed.');
    }
    const { result } = finished;
    const describe = (body: Uint8Array): RenderOutcome => ({ body, contentType: result.content_type, extension: result.extension, headers: result.headers });
    // Handed over by the renderer: nothing of it was stored.
    if (handedOver) return describe(handedOver);
    const body = await deps.results.read(result.object_name);
    if (!body) throw new AppError('render_failed', 'The render result is no longer available.');
    if (input.placement) return { ...describe(body), kept: { objectName: result.object_name, expiresUnixMs: result.expires_unix_ms } };
    void deps.results.remove(result.object_name).catch(() => undefined);
    return describe(body);
  };
}

export type RenderSync = ReturnType<typeof renderSync>;
