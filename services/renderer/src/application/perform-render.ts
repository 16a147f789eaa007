import { AppError, ack, dispositionAfter, errors, isAppError, nak, type Disposition } from '@app/errors';
import { RENDER_PRODUCERS, encodeResultMeta } from '@app/render-contracts';
import { RenderParams, type RenderFinished, type RenderJob } from '@app/proto/render';
import { OPERATIONS as RENDER_OPERATIONS, formatOf, renderBudgetMs, timeoutSecondsOf } from '@app/render-params';
import { secretsOfSteps } from './step-secrets.js';
import { keepSessionOfJob, sessionOfJob } from './task-session.js';
import type { RenderOperation } from '../render/index.js';
import type { Clock, FinishedPublisher, JobInputs, JobOutcome, Renderer, ResultHandOver, ResultSink, SecretSource, SessionStore, StartGate, TargetGuard } from './ports.js';

const OPERATIONS: ReadonlySet<string> = new Set<string>(RENDER_OPERATIONS);

/** A transient (synchronous) result the edge never removed, e.g. after a crash, is swept after this. */
const TRANSIENT_RESULT_TTL_MS = 60 * 60 * 1000;

/** Jobs whose parameters always travel inline (tests, tools). */
const INLINE_INPUTS: JobInputs = { resolve: async (job) => job, release: async () => undefined };

/** Before another delivery of a job that failed for a passing reason (the error table says nak). */
const RETRY_DELAY_MS = 500;
/** Before asking again whether a waiting caller still wants the job, or trying after a full browser pool. */
const SOON_MS = 250;

/** A failure as the caller sees it: its own error when it has a stable meaning, render_failed otherwise. */
const callerError = (err: unknown): AppError =>
  isAppError(err) && err.code !== 'internal_error' ? err : new AppError('render_failed', 'The render failed.');

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
  inputs?: JobInputs;
  /** Asked before a job with confirm_start is started; absent: every job starts. */
  startGate?: StartGate;
  /** Told how each job ended and how long it took here (metrics). */
  observe?: (operation: string, outcome: JobOutcome, seconds: number) => void;
  /** The account secrets `type` steps name, fetched at render time (absent: a step naming one fails). */
  secrets?: SecretSource;
  /** Tasks' kept page sessions (keep_session), read before and kept after a task's render. */
  sessions?: SessionStore;
  /** Hands a synchronous render's result to the caller waiting for it (absent: every result is stored). */
  handOver?: ResultHandOver;
}) {
  const { renderer, results, finished, guard, clock } = deps;
  const inputs = deps.inputs ?? INLINE_INPUTS;
  const observe = deps.observe ?? (() => undefined);

  const finishedEvent = (job: RenderJob, startedMs: number, outcome: Pick<RenderFinished, 'status' | 'result' | 'error'>): RenderFinished => {
    const params = job.params ?? RenderParams.create();
    return {
      job_id: job.job_id,
      account_id: job.account_id,
      operation: job.operation,
      started_unix_ms: startedMs,
      finished_unix_ms: clock.now().getTime(),
      origin: job.origin,
      task_id: job.task_id,
      run_id: job.run_id,
      renderer_id: deps.rendererId,
      producer: RENDER_PRODUCERS.renderer,
      // Everything the consumers of the event need (status, quota, cache, webhook), copied from the job.
      reservation_id: job.reservation_id,
      async: params.async ?? false,
      webhook_url: params.webhook_url,
      webhook_signed: params.webhook_signed,
      created_unix_ms: job.created_unix_ms,
      format: formatOf(job.operation, params),
      placement: job.placement,
      files_base_url: job.files_base_url,
      ...outcome,
    };
  };
  const announce = (job: RenderJob, startedMs: number, outcome: Pick<RenderFinished, 'status' | 'result' | 'error'>) =>
    finished.publish(finishedEvent(job, startedMs, outcome), job.confirm_start ? job : undefined);

  const fail = (job: RenderJob, startedMs: number, err: AppError) =>
    announce(job, startedMs, { status: 'failed', error: { code: err.code, message: err.message, details: err.details ?? [] } });

  const handle = async (job: RenderJob, attempt: { isLast: boolean }, startedMs: number): Promise<[Disposition, JobOutcome]> => {
    const params = job.params ?? RenderParams.create();
    const timeoutSeconds = timeoutSecondsOf(params);
    const remainingMs = job.deadline_unix_ms - startedMs;
    if (!OPERATIONS.has(job.operation)) {
      const err = new AppError('invalid_parameter', `Unknown operation ${job.operation}.`);
      await fail(job, startedMs, err);
      return [dispositionAfter(err, attempt, RETRY_DELAY_MS), 'failed'];
    }
    if (job.confirm_start && deps.startGate) {
      // The caller sheds a job no renderer started in time: it is never rendered, nor announced.
      const answer = await deps.startGate.confirm(job, Number(job.created_unix_ms));
      if (answer === 'shed') return [ack, 'shed'];
      if (answer === 'unanswered') return attempt.isLast ? [ack, 'shed'] : [nak(SOON_MS), 'retried'];
    }
    if (remainingMs <= 0) {
      await fail(job, startedMs, errors.renderTimeout(timeoutSeconds));
      return [ack, 'failed'];
    }
    if (params.async) {
      // Best effort: the status says "running" from here; the finished event is what counts.
      await finished
        .started({ job_id: job.job_id, account_id: job.account_id, started_unix_ms: startedMs, renderer_id: deps.rendererId })
        .catch(() => undefined);
    }
    try {
      if (params.url) await guard.check(params.url, 'url');
      // An async job may wait in the queue (its deadline allows for it); the render itself keeps its budget.
      const renderMs = Math.min(remainingMs, renderBudgetMs(job.operation, params));
      // Secrets travel only from auth-quota to this render's memory: never in the job, the event or a log.
      const secrets = await secretsOfSteps(params.steps ?? [], job.account_id, deps.secrets);
      // A task's kept session likewise: read from auth-quota for this render, never part of the job.
      const session = await sessionOfJob(job, deps.sessions);
      const output = await renderer.render(job.operation as RenderOperation, params, renderMs, { secrets, session });
      const described = { content_type: output.contentType, extension: output.extension, size: output.body.byteLength, headers: output.headers };
      // A caller waiting for this result takes it from here: no object is written, read and removed, and
      // no event is stored (the caller holds the outcome, and its answer settles the reservation).
      if (job.confirm_start && !job.placement && deps.handOver) {
        const event = finishedEvent(job, startedMs, { status: 'succeeded', result: { ...described, object_name: '', expires_unix_ms: 0 } });
        if (await deps.handOver.offer(job, event, output.body)) {
          finished.tellTaken(event);
          return [ack, 'succeeded'];
        }
      }
      const { placement } = job;
      const objectName = placement?.object_name || job.job_id;
      const expiresMs = clock.now().getTime() + (placement ? placement.ttl_ms : TRANSIENT_RESULT_TTL_MS);
      await results.put(
        objectName,
        output.body,
        encodeResultMeta({
          accountId: job.account_id,
          expiresUnixMs: expiresMs,
          contentType: output.contentType,
          extension: output.extension,
          kind: placement ? 'file' : 'transient',
          headers: output.headers,
          attachmentName: params.attachment_name,
        }),
      );
      // Kept before the run is announced, so the run that follows it starts from this session.
      await keepSessionOfJob(job, output.session, deps.sessions);
      await announce(job, startedMs, {
        status: 'succeeded',
        result: { ...described, object_name: objectName, expires_unix_ms: expiresMs },
      });
      return [ack, 'succeeded'];
    } catch (err) {
      // The error table decides: a passing condition (a full pool, a store outage, a fault) is tried again
      // while deliveries remain; anything else is the render's outcome, announced to the caller.
      const after = dispositionAfter(err, attempt, isAppError(err) && err.code === 'renderer_unavailable' ? SOON_MS : RETRY_DELAY_MS);
      if (after.kind === 'nak') return [after, 'retried'];
      await fail(job, startedMs, callerError(err));
      return [after, 'failed'];
    }
  };

  return async (queued: RenderJob, attempt: { isLast: boolean }): Promise<Disposition> => {
    const startedMs = clock.now().getTime();
    let job: RenderJob;
    try {
      job = await inputs.resolve(queued);
    } catch (err) {
      const after = dispositionAfter(err, attempt, RETRY_DELAY_MS);
      if (after.kind === 'nak') return after;
      await fail(queued, clock.now().getTime(), callerError(err));
      return after;
    }
    const [disposition, outcome] = await handle(job, attempt, startedMs);
    observe(job.operation, outcome, (clock.now().getTime() - startedMs) / 1000);
    // Parameters stored for this job are kept while a retry may need them, and removed once it is done.
    if (disposition.kind !== 'nak') await inputs.release(job).catch(() => undefined);
    return disposition;
  };
}

export type PerformRender = ReturnType<typeof performRender>;
