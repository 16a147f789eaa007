import { ValidationError, ack, dispositionAfter, isAppError, isRetryable, type Disposition } from '@app/errors';
import { checkRenderTargets } from '@app/net-guard';
import type { RenderJob, RenderParams } from '@app/proto/render';
import { planRestrictedFeaturesOf, renderBudgetMs } from '@app/render-params';
import { decide, taskNotFound } from '../domain/task/task.decider.js';
import { jobParamsOf, type JobTrigger } from '../domain/task/job-params.js';
import { manualRunIdOf, runIdOf, type ActiveTask, type ConfirmRun, type DispatchRun, type PrepareRun, type RunError, type RunNow } from '../domain/task/task.js';
import { boundedMemo } from '../bounded-memo.js';
import type { AuthQuota, Clock, PreparedJob, RenderJobs, TargetGuard, TaskStreams } from './ports.js';
import { checkTaskQuery, type TaskQueryCheck } from './task-query.js';

/** Before another delivery of a run whose admission failed for a passing reason (without a Retry-After). */
const RETRY_DELAY_MS = 1_000;

/**
 * A dispatched run whose job may not have reached the queue (a crash between the two) is published again
 * when its message comes back, but only while the queue still deduplicates the job id (its 2-minute window);
 * later, a second publish could render twice.
 */
export const REPUBLISH_WINDOW_MS = 60_000;

/** How long the result file of a run is kept (decisions: async results without a cache TTL live 24 hours). */
export const RESULT_TTL_MS = 24 * 3_600_000;

const runError = (err: unknown): RunError =>
  isAppError(err) && err.code !== 'internal_error'
    ? { code: err.code, message: err.message }
    : { code: 'internal_error', message: 'An internal error occurred.' };

/** The render job of a task's run with its parameters (`jobParamsOf`), stamped `now` (its creation; the deadline counts from it). */
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
    // The renderer restores and keeps the task's session itself (at auth-quota): the job names none.
    ...(task.definition.keepSession ? { keep_session: true } : {}),
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

/** A run claimed ahead of its due instant, its job ready to publish. */
export interface ClaimedAhead {
  taskId: number;
  runId: string;
  dueAt: number;
  accountId: string;
  /** Encoded ahead: at the due instant, publishing it is all that is left. */
  job: PreparedJob;
  reservationId?: string;
  /** The task the job was built from (its definition decides whether the job still stands at the due instant). */
  task: ActiveTask;
}

/**
 * How a task's run starts, whichever its trigger, through the same path as an API call: the query checked
 * with its operation's rules, every address the render loads (`url`, `proxy`) with the SSRF policy, the
 * account admitted by auth-quota (plan, rate limit, one unit of quota reserved), the run's job recorded in
 * its stream (at the version read: one claim per occurrence across replicas), the job built with the
 * parameters `jobParamsOf` decides from the task as loaded here (its definition as of the run's start); a
 * reservation that no job will carry is announced so that auth-quota releases it.
 *
 * Four triggers take these steps:
 * - `atDueTime` (a claimed run's `scheduler.task.run-started` event): a refusal is a failed run with its
 *   code; the job is published at once. Redelivered messages are harmless: the run's state says what was
 *   done already.
 * - `ahead` (a prepare request, in the lead time before the due instant): a run that cannot start (a
 *   refusal, an unreachable service) is left to the due-time path, which records its failure; the job is
 *   made ready for its due instant (see prepare-runs.ts), and `giveBack` undoes the claim.
 * - `onRequest` (the owner's `POST /v1/tasks/{id}/runs`): one run now, outside the schedule; a refusal is
 *   the caller's answer and records nothing; the job is published at once, in the request's trace.
 * - `toConfirm` (a monitoring run's comparison suspects a change, `confirm` on): the same page rendered once
 *   more; a refusal means no confirming render, and the change counts unconfirmed.
 */
export function runStarter(deps: RunDeps) {
  const { streams, authQuota, jobs, guard, clock } = deps;
  // Validation is a pure function of the operation and the query: a task's every run gets the same answer.
  const checkQuery = boundedMemo(checkTaskQuery, (api, query) => `${api} ${query}`);
  const now = () => clock.now().getTime();

  // ---- The steps, shared by every trigger (due time, ahead, run now, confirm) ----
  /** The job's parameters, from the task as loaded (its definition as of this start) and the trigger; or the query's problems. */
  const paramsOf = (task: ActiveTask, trigger: JobTrigger): TaskQueryCheck => {
    const checked = checkQuery(task.definition.api, task.definition.query);
    return checked.params ? { params: jobParamsOf(task, checked.params, { trigger }), problems: [] } : checked;
  };
  /** `prefix` names a refused parameter as the caller knows it (`query.url` for an API request). */
  const checkTargets = (params: RenderParams, prefix = '') => checkRenderTargets(params, (url, parameter) => guard.check(url, parameter), prefix);
  const admit = async (task: ActiveTask, params: RenderParams) =>
    (await authQuota.admitRun({ accountId: task.accountId, features: ['tasks', ...planRestrictedFeaturesOf(params)] })).reservationId;
  /**
   * The targets checked, then the account admitted: its reservation, or undefined when either refuses or
   * cannot answer (for the triggers that then leave the run: ahead, confirm).
   */
  const mayStart = async (task: ActiveTask, params: RenderParams): Promise<{ reservationId: string | undefined } | undefined> => {
    try {
      await checkTargets(params);
      return { reservationId: await admit(task, params) };
    } catch {
      return undefined;
    }
  };
  /** A reservation no job will carry: announced so that auth-quota releases it. */
  const release = async (accountId: string, reservationId: string | undefined) => {
    if (reservationId) await jobs.withoutJob({ accountId, reservationId }).catch(() => undefined);
  };
  /** Records the run's job; undefined when there was nothing to claim. A reservation not claimed is released. */
  async function claim(task: ActiveTask, reservationId: string | undefined, command: DispatchRun | PrepareRun | RunNow | ConfirmRun) {
    let change;
    try {
      change = await streams.change(task.taskId, (current) => decide(command, current));
    } catch (err) {
      await release(task.accountId, reservationId);
      throw err;
    }
    if (change.events.length > 0) return change;
    // Claimed meanwhile (another delivery, the other trigger), deleted or disabled: this reservation is not needed.
    await release(task.accountId, reservationId);
    return undefined;
  }
  const newIds = () => ({ jobId: deps.newId(), fileName: deps.newFileName() });

  const fail = async (taskId: number, runId: string, error: RunError) => {
    await streams.change(taskId, (state) => decide({ type: 'FinishRun', data: { runId, outcome: 'failed', error }, metadata: { now: now() } }, state));
  };

  /** Due-time trigger: a started (claimed) run becomes a render job now. */
  async function atDueTime(run: { taskId: number; runId: string }, attempt: { isLast: boolean }): Promise<Disposition> {
    const { taskId, runId } = run;
    const { state } = await streams.load(taskId);
    // Deleted since the claim: it stops at once. Finished already: nothing left to do.
    if (state.status !== 'Active') return ack;
    const open = state.openRuns[runId];
    if (!open) return ack;
    const at = now();

    const checked = paramsOf(state, 'schedule');
    if (!checked.params) {
      const problem = checked.problems[0]!;
      await fail(taskId, runId, { code: 'invalid_parameter', message: `${problem.parameter}: ${problem.message}` });
      return ack;
    }
    const { params } = checked;

    if (open.jobId) {
      if (at - (open.dispatchedAt ?? 0) <= REPUBLISH_WINDOW_MS) {
        const ids = { jobId: open.jobId, fileName: open.fileName ?? deps.newFileName(), reservationId: open.reservationId };
        await jobs.publish(renderJob(state, runId, ids, params, at));
      }
      return ack;
    }

    try {
      await checkTargets(params);
    } catch (err) {
      if (isRetryable(err)) throw err;
      await fail(taskId, runId, runError(err));
      return ack;
    }

    let reservationId: string | undefined;
    try {
      reservationId = await admit(state, params);
    } catch (err) {
      // The error table decides: a rate limit or an outage is waited out (its Retry-After) while deliveries
      // remain; a refusal (plan, quota, billing) fails the run at once.
      const after = dispositionAfter(err, attempt, RETRY_DELAY_MS);
      if (after.kind === 'nak') return after;
      await fail(taskId, runId, runError(err));
      return after;
    }

    const ids = newIds();
    const claimed = await claim(state, reservationId, { type: 'DispatchRun', data: { runId, ...ids, reservationId }, metadata: { now: at } });
    if (!claimed) return ack;
    await jobs.publish(renderJob(state, runId, { ...ids, reservationId }, params, at));
    deps.onDispatched?.(now() - open.dueAt);
    return ack;
  }

  /** Ahead trigger: a run due at `dueAt` is claimed now and its job made ready; undefined when it cannot be. */
  async function ahead(request: { taskId: number; dueAt: number }): Promise<ClaimedAhead | undefined> {
    const { taskId, dueAt } = request;
    const runId = runIdOf(taskId, dueAt);
    const { state } = await streams.load(taskId);
    if (state.status !== 'Active' || !state.enabled || (state.lastDueAt !== null && dueAt <= state.lastDueAt)) return undefined;
    const { params } = paramsOf(state, 'schedule');
    if (!params) return undefined;
    const admitted = await mayStart(state, params);
    if (!admitted) return undefined;
    const { reservationId } = admitted;
    const ids = newIds();
    const claimed = await claim(state, reservationId, { type: 'PrepareRun', data: { runId, dueAt, ...ids, reservationId, definition: state.definition }, metadata: { now: now() } });
    if (!claimed) return undefined;
    // The task the parameters were decided from (a change that came before the claim refuses it: the
    // decider compares the definition; one that comes after it is seen at the due instant, and the run is
    // cancelled).
    const task = state;
    const run = { taskId, runId, dueAt, accountId: state.accountId, ...(reservationId ? { reservationId } : {}) };
    // The job is stamped with its due instant, the moment it will be published; it carries the reservation.
    let job: PreparedJob;
    try {
      job = await jobs.prepare(renderJob(task, runId, { ...ids, reservationId }, params, dueAt));
    } catch (err) {
      // Claimed, and cannot start from here: given back to the due-time path, its reservation released.
      await giveBack(run);
      throw err;
    }
    return { ...run, job, task };
  }

  /** Owner's trigger: a run of the caller's task now, enabled or not; answers its run id, or throws the refusal. */
  async function onRequest(request: { accountId: string; taskId: number }): Promise<string> {
    const { accountId, taskId } = request;
    const { state } = await streams.load(taskId);
    if (state.status !== 'Active' || state.accountId !== accountId) throw taskNotFound(taskId);
    const checked = paramsOf(state, 'manual');
    if (!checked.params) throw new ValidationError(checked.problems);
    const { params } = checked;
    await checkTargets(params, 'query.');
    const reservationId = await admit(state, params);
    const at = now();
    const ids = newIds();
    const runId = manualRunIdOf(taskId, at, ids.jobId);
    const claimed = await claim(state, reservationId, { type: 'RunNow', data: { accountId, taskId, runId, ...ids, reservationId }, metadata: { now: at } });
    if (!claimed) return runId;
    try {
      await jobs.publish(renderJob(state, runId, { ...ids, reservationId }, params, at));
    } catch (err) {
      // No job is out: the run fails now rather than staying open, and its reservation is released.
      await fail(taskId, runId, runError(err)).catch(() => undefined);
      await release(accountId, reservationId);
      throw err;
    }
    return runId;
  }

  /**
   * Confirm trigger: a monitoring run's suspected change rendered once more (`TaskRunConfirming` is its
   * claim), from the task as the comparison loaded it. True when a confirming render is on its way (this
   * one, or one already out: a redelivery publishes its job again under the same id, in case the first
   * publish was lost); false when none can be had (a query or target refused, a refusal or an outage of
   * auth-quota): the change then counts unconfirmed.
   */
  async function toConfirm(request: { task: ActiveTask; runId: string; score: number }): Promise<boolean> {
    const { task, runId, score } = request;
    const { params } = paramsOf(task, 'confirm');
    if (!params) return false;
    const inFlight = Object.entries(task.confirming ?? {}).find(([, c]) => c.runId === runId);
    if (inFlight) {
      const [jobId, { fileName, reservationId, startedAt }] = inFlight;
      if (fileName) await jobs.publish(renderJob(task, runId, { jobId, fileName, reservationId }, params, startedAt));
      return true;
    }
    const admitted = await mayStart(task, params);
    if (!admitted) return false;
    const { reservationId } = admitted;
    const at = now();
    const ids = newIds();
    const claimed = await claim(task, reservationId, { type: 'ConfirmRun', data: { runId, ...ids, ...(reservationId ? { reservationId } : {}), score }, metadata: { now: at } });
    // Not claimed: confirming already (another delivery), or the run no longer awaits its comparison.
    if (!claimed) return true;
    await jobs.publish(renderJob(task, runId, { ...ids, reservationId }, params, at));
    return true;
  }

  /**
   * A run claimed ahead that will not start from here: cancelled (the due-time path may claim it) and
   * released. One started meanwhile (recovered by another replica, its job out) keeps its reservation.
   */
  async function giveBack(run: Pick<ClaimedAhead, 'taskId' | 'runId' | 'accountId' | 'reservationId'>): Promise<void> {
    const { after } = await streams.change(run.taskId, (current) => decide({ type: 'CancelPreparedRun', data: { runId: run.runId }, metadata: { now: now() } }, current));
    const started = after.status !== 'Absent' && after.openRuns[run.runId] !== undefined;
    if (!started) await release(run.accountId, run.reservationId);
  }

  return { atDueTime, ahead, giveBack, onRequest, toConfirm };
}

export type RunStarter = ReturnType<typeof runStarter>;
