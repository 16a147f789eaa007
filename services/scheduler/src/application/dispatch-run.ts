import { ack, dispositionAfter, isAppError, isRetryable, type Disposition } from '@app/errors';
import type { RenderJob, RenderParams } from '@app/proto/render';
import { planRestrictedFeaturesOf, renderBudgetMs } from '@app/render-params';
import { decide } from '../domain/task/task.decider.js';
import type { ActiveTask, RunError } from '../domain/task/task.js';
import { boundedMemo } from '../bounded-memo.js';
import { checkRenderTargets } from '@app/net-guard';
import type { AuthQuota, Clock, RenderJobs, TargetGuard, TaskStreams } from './ports.js';
import { checkTaskQuery } from './task-query.js';

/** Before another delivery of a run whose admission failed for a passing reason (without a Retry-After). */
const RETRY_DELAY_MS = 1_000;

/**
 * A dispatched run whose job may not have reached the queue (a crash between the two) is published again
 * when its message comes back, but only while the queue still deduplicates the job id (its 2-minute window);
 * later, a second publish could render twice.
 */
export const REPUBLISH_WINDOW_MS = 60_000;

const runError = (err: unknown): RunError =>
  isAppError(err) && err.code !== 'internal_error'
    ? { code: err.code, message: err.message }
    : { code: 'internal_error', message: 'An internal error occurred.' };

/** How long the result file of a run is kept (decisions: async results without a cache TTL live 24 hours). */
export const RESULT_TTL_MS = 24 * 3_600_000;

/** The render job of a task's run, stamped `now` (its creation; the deadline counts from it). */
export function renderJob(
  task: ActiveTask,
  runId: string,
  ids: { jobId: string; fileName: string; reservationId: string | undefined },
  params: RenderParams,
  now: number,
): RenderJob {
  return {
    job_id: ids.jobId,
    account_id: task.accountId,
    operation: task.definition.api,
    params,
    deadline_unix_ms: now + renderBudgetMs(task.definition.api, params),
    created_unix_ms: now,
    origin: 'task',
    task_id: String(task.taskId),
    run_id: runId,
    // Kept as a file (not a transient result): fetchable at <files base URL><name> until it expires.
    placement: { object_name: ids.fileName, ttl_ms: RESULT_TTL_MS },
    files_base_url: task.filesBaseUrl,
    // auth-quota settles the run's quota from the render's outcome.
    reservation_id: ids.reservationId,
  };
}

/** What turning a run into a render job needs (at its due instant, or ahead of it). */
export interface RunDeps {
  streams: TaskStreams;
  authQuota: AuthQuota;
  jobs: RenderJobs;
  guard: TargetGuard;
  clock: Clock;
  newId: () => string;
  /** An unguessable result file name (it is the capability of the file URL). */
  newFileName: () => string;
  /** Told, for every run turned into a render job, how long after its due time that happened (metrics). */
  onDispatched?: (lagMs: number) => void;
}

/**
 * Turns a started run into a render job through the same path as an API call: the query is validated with
 * the operation's rules, the target with the SSRF policy, the account admitted by auth-quota (plan, rate
 * limit, one unit of quota reserved), then the job is recorded and published. A refusal is a failed run
 * with the error code. Redelivered messages are harmless: the run's state says what was done already.
 */
export function dispatchRun(deps: RunDeps) {
  const { streams, authQuota, jobs, guard, clock } = deps;
  // Validation is a pure function of the operation and the query: a task's every run gets the same answer.
  const checkQuery = boundedMemo(checkTaskQuery, (api, query) => `${api} ${query}`);

  const fail = async (taskId: number, runId: string, error: RunError) => {
    await streams.change(taskId, (state) =>
      decide({ type: 'FinishRun', data: { runId, outcome: 'failed', error }, metadata: { now: clock.now().getTime() } }, state),
    );
  };

  return async (run: { taskId: number; runId: string }, attempt: { isLast: boolean }): Promise<Disposition> => {
    const { taskId, runId } = run;
    const { state } = await streams.load(taskId);
    // Deleted since the claim: it stops at once. Finished already: nothing left to do.
    if (state.status !== 'Active') return ack;
    const open = state.openRuns[runId];
    if (!open) return ack;
    const now = clock.now().getTime();

    const checked = checkQuery(state.definition.api, state.definition.query);
    if (!checked.params) {
      const problem = checked.problems[0]!;
      await fail(taskId, runId, { code: 'invalid_parameter', message: `${problem.parameter}: ${problem.message}` });
      return ack;
    }
    const { params } = checked;

    if (open.jobId) {
      if (now - (open.dispatchedAt ?? 0) <= REPUBLISH_WINDOW_MS) {
        const ids = { jobId: open.jobId, fileName: open.fileName ?? deps.newFileName(), reservationId: open.reservationId };
        await jobs.publish(renderJob(state, runId, ids, params, now));
      }
      return ack;
    }

    try {
      await checkRenderTargets(params, (url, parameter) => guard.check(url, parameter));
    } catch (err) {
      if (isRetryable(err)) throw err;
      await fail(taskId, runId, runError(err));
      return ack;
    }

    let reservationId: string | undefined;
    try {
      ({ reservationId } = await authQuota.admitRun({ accountId: state.accountId, features: ['tasks', ...planRestrictedFeaturesOf(params)] }));
    } catch (err) {
      // The error table decides: a rate limit or an outage is waited out (its Retry-After) while deliveries
      // remain; a refusal (plan, quota, billing) fails the run at once.
      const after = dispositionAfter(err, attempt, RETRY_DELAY_MS);
      if (after.kind === 'nak') return after;
      await fail(taskId, runId, runError(err));
      return after;
    }

    const ids = { jobId: deps.newId(), fileName: deps.newFileName() };
    let recorded;
    try {
      recorded = await streams.change(taskId, (current) =>
        decide({ type: 'DispatchRun', data: { runId, ...ids, reservationId }, metadata: { now } }, current),
      );
    } catch (err) {
      if (reservationId) await jobs.withoutJob({ accountId: state.accountId, reservationId }).catch(() => undefined);
      throw err;
    }
    if (recorded.events.length === 0) {
      // Deleted in the meantime (or dispatched by another delivery): this reservation is not needed.
      if (reservationId) await jobs.withoutJob({ accountId: state.accountId, reservationId });
      return ack;
    }
    await jobs.publish(renderJob(state, runId, { ...ids, reservationId }, params, now));
    deps.onDispatched?.(clock.now().getTime() - open.dueAt);
    return ack;
  };
}

export type DispatchRun = ReturnType<typeof dispatchRun>;

