import { AppError, errors, isAppError } from '@app/errors';
import { RenderParams, type RenderFinished, type RenderJob } from '@app/proto/render';
import type { RenderOperation } from '../render/types.js';
import type { Clock, FinishedPublisher, Renderer, ResultSink, TargetGuard } from './ports.js';

const OPERATIONS: ReadonlySet<string> = new Set(['screenshot', 'pdf', 'scrape']);

/** What the transport should do with the job message afterwards. */
export type Disposition = { kind: 'done' } | { kind: 'retry'; delayMs: number };

/**
 * Carries out one render job: checks the target again (defence in depth), renders within what is left
 * of the job's deadline, stores the result and announces the outcome. Caller-visible failures become
 * a failed RenderFinished; unexpected ones are retried while deliveries remain.
 */
export function performRender(deps: {
  renderer: Renderer;
  results: ResultSink;
  finished: FinishedPublisher;
  guard: TargetGuard;
  clock: Clock;
  rendererId: string;
}) {
  const { renderer, results, finished, guard, clock } = deps;

  const announce = (job: RenderJob, startedMs: number, outcome: Pick<RenderFinished, 'status' | 'result' | 'error'>) =>
    finished.publish({
      job_id: job.job_id,
      account_id: job.account_id,
      operation: job.operation,
      started_unix_ms: startedMs,
      finished_unix_ms: clock.now().getTime(),
      origin: job.origin,
      task_id: job.task_id,
      run_id: job.run_id,
      renderer_id: deps.rendererId,
      ...outcome,
    });

  const fail = (job: RenderJob, startedMs: number, err: AppError) =>
    announce(job, startedMs, { status: 'failed', error: { code: err.code, message: err.message } });

  return async (job: RenderJob, attempt: { isLast: boolean }): Promise<Disposition> => {
    const startedMs = clock.now().getTime();
    const params = job.params ?? RenderParams.create();
    const timeoutSeconds = params.timeout ?? 30;
    const remainingMs = job.deadline_unix_ms - startedMs;
    if (!OPERATIONS.has(job.operation)) {
      await fail(job, startedMs, new AppError('invalid_parameter', `Unknown operation ${job.operation}.`));
      return { kind: 'done' };
    }
    if (remainingMs <= 0) {
      await fail(job, startedMs, errors.renderTimeout(timeoutSeconds));
      return { kind: 'done' };
    }
    try {
      if (params.url) await guard.check(params.url, 'url');
      const output = await renderer.render(job.operation as RenderOperation, params, remainingMs);
      await results.put(job.job_id, output.body);
      await announce(job, startedMs, {
        status: 'succeeded',
        result: {
          object_name: job.job_id,
          content_type: output.contentType,
          extension: output.extension,
          size: output.body.byteLength,
          headers: output.headers,
        },
      });
      return { kind: 'done' };
    } catch (err) {
      if (isAppError(err) && err.code === 'renderer_unavailable' && !attempt.isLast) {
        return { kind: 'retry', delayMs: 250 };
      }
      if (isAppError(err) && err.code !== 'internal_error') {
        await fail(job, startedMs, err);
        return { kind: 'done' };
      }
      if (!attempt.isLast) return { kind: 'retry', delayMs: 500 };
      await fail(job, startedMs, new AppError('render_failed', 'The render failed.'));
      return { kind: 'done' };
    }
  };
}

export type PerformRender = ReturnType<typeof performRender>;
