import { createHash } from 'node:crypto';
import type { RenderFinished } from '@app/proto/render';
import { DEFAULT_KEEP, exceeds, keepOf, type Monitor, type RunChange } from '../domain/monitor/monitor.js';
import { decide } from '../domain/task/task.decider.js';
import { confirmingRunOf } from '../domain/task/task-monitoring.js';
import type { ChangeAnnouncement, Frequency } from '../domain/task/task.js';
import { announcementOf } from './announcement.js';
import { ComparisonFailed, type CompareJobResult, type ComparisonFailure } from '../comparison/compare-job.js';
import { RESULT_TTL_MS, type RunStarter } from './start-run.js';
import type { Clock, Comparer, ResultStore, TaskStreams } from './ports.js';

const HOUR_MS = 3_600_000;
const PERIOD_MS: Record<Frequency, number> = {
  every_minute: 60_000,
  every_hour: HOUR_MS,
  every_day: 24 * HOUR_MS,
  every_month: 31 * 24 * HOUR_MS,
  custom: 31 * 24 * HOUR_MS,
};

/**
 * How long a compared result is kept: like any result (24 hours), or longer when the monitor's last `keep`
 * runs (and the next run, compared with the newest) span more than that: `keep` + 1 periods of the task.
 */
export const comparedTtlMs = (frequency: Frequency, keep: number = DEFAULT_KEEP): number =>
  Math.max(RESULT_TTL_MS, (Math.max(keep, 1) + 1) * PERIOD_MS[frequency]);

/**
 * The name of a file derived from a run's result (its compared form, its diff): as unguessable as the
 * result's own name (256 random bits) and of the same shape, so the edge serves it as a file; the same for
 * the same result, so a redelivered comparison writes the same files.
 */
export const derivedFileName = (resultName: string, purpose: 'compared' | 'diff'): string =>
  createHash('sha256').update(`${resultName}\0${purpose}`).digest('base64url');

/** A comparison that fails on this delivery of its run's outcome (or a later one) is recorded as failed. */
export const COMPARE_ATTEMPTS = 3;
/**
 * Deliveries after which a comparison is recorded as failed without being tried again: the earlier ones
 * never settled (the scheduler was stopped, or killed, while comparing).
 */
export const MAX_UNSETTLED_DELIVERIES = 5;

const FAILURE_SUMMARY: Record<ComparisonFailure | 'unsettled', string> = {
  deadline: `The comparison ran out of time on ${COMPARE_ATTEMPTS} attempts`,
  crashed: `The comparison ran out of memory on ${COMPARE_ATTEMPTS} attempts`,
  error: `The comparison failed on ${COMPARE_ATTEMPTS} attempts`,
  unsettled: `The comparison did not finish in ${MAX_UNSETTLED_DELIVERIES} tries`,
};

export interface CompareRunDeps {
  streams: TaskStreams;
  results: ResultStore;
  clock: Clock;
  /** Where the comparison's CPU work runs (worker threads with a deadline). */
  comparer: Comparer;
  /** The confirm trigger of the run-start pipeline (start-run.ts): a suspected change rendered once more. */
  confirm: RunStarter['toConfirm'];
  /** Told how long each comparison took (metrics). */
  onCompared?: (ms: number, mode: Monitor['mode']) => void;
  /** Told of each comparison attempt that failed (logs). */
  onFailed?: (err: ComparisonFailed, at: { taskId: number; runId: string; delivery: number }) => void;
}

/**
 * Compares a monitoring task's finished run with the last successful one and records the outcome as an
 * event of the task (`TaskRunCompared`): the first is the baseline; a suspected change is rendered once
 * more unless `confirm` is false (the run-start pipeline's confirm trigger: checked, admitted and charged
 * like any run's render, `TaskRunConfirming` its claim), and counts only if the confirming render differs too. Redeliveries are harmless: a run is compared once and
 * the files it writes have names derived from the run's result.
 *
 * The comparison's work runs in `comparer` (worker threads, with a deadline), never on the thread that
 * serves requests. One that fails is tried again ('retry': the outcome is delivered again) until its
 * COMPARE_ATTEMPTS-th delivery, then recorded as a `failed` comparison (the baseline stays, nothing is
 * announced); `delivery` is the outcome's delivery count.
 */
export function compareRun(deps: CompareRunDeps) {
  const { streams, results, clock } = deps;

  const record = async (taskId: number, runId: string, change: RunChange, announce?: ChangeAnnouncement) => {
    await streams.change(taskId, (state) =>
      decide({ type: 'CompareRun', data: { runId, change, ...(announce ? { announce } : {}) }, metadata: { now: clock.now().getTime() } }, state),
    );
  };

  return async (finished: RenderFinished, delivery = 1): Promise<'done' | 'retry'> => {
    if (finished.origin !== 'task' || !finished.task_id) return 'done';
    const taskId = Number(finished.task_id);
    if (!Number.isSafeInteger(taskId) || taskId < 1) return 'done';
    const { state } = await streams.load(taskId);
    if (state.status !== 'Active' || !state.definition.monitor) return 'done';
    const monitor = state.definition.monitor;
    const confirmingRun = confirmingRunOf(state, finished.job_id);
    const runId = confirmingRun ?? finished.run_id;
    if (!runId) return 'done';
    const pending = state.uncompared?.[runId];
    if (!pending) return 'done';
    // The run's own render again (a redelivery): its confirming render is on its way. The confirm trigger
    // publishes its job again under the same id (the queue keeps one), in case the first publish was lost.
    const inFlight = Object.values(state.confirming ?? {}).some((c) => c.runId === runId);
    if (!confirmingRun && inFlight) {
      await deps.confirm({ task: state, runId, score: 0 });
      return 'done';
    }

    const baseline = state.baseline ?? undefined;
    // Every outcome may end (or, failed, start) a failing episode: announced where changes are.
    const announce = announcementOf(state);
    if (confirmingRun && (finished.status !== 'succeeded' || !finished.result)) {
      // The confirming render failed: the suspected change is not counted; the baseline stays.
      const summary = 'A change was suspected but the confirming render failed: not counted.';
      await record(taskId, runId, { status: 'unchanged', score: 0, summary, after: baseline?.file ?? pending.file, boxes: [] }, announce);
      return 'done';
    }
    const resultName = confirmingRun ? finished.result!.object_name : pending.file;
    const ttlMs = comparedTtlMs(state.definition.frequency, keepOf(monitor));
    // A screenshot is compared as it is: kept no longer than results are, it is its own compared file,
    // and a first run's (the baseline) need not even be read.
    const sameAsResult = monitor.mode === 'visual' && ttlMs <= RESULT_TTL_MS;
    const failed = async (reason: ComparisonFailure | 'unsettled') => {
      const summary = `${FAILURE_SUMMARY[reason]}: this run is not compared; the baseline stays.`;
      await record(taskId, runId, { status: 'failed', score: 0, summary, ...(baseline ? { before: baseline.file } : {}), after: resultName, boxes: [] }, announce);
      return 'done' as const;
    };
    if (delivery > MAX_UNSETTLED_DELIVERIES) return failed('unsettled');
    const [stored, previous] = await Promise.all([results.read(resultName), baseline ? results.read(baseline.file) : undefined]);
    if (!stored) return 'done'; // gone (expired): nothing to compare
    const started = performance.now();
    let outcome: CompareJobResult;
    try {
      outcome = await deps.comparer.compare({
        monitor,
        result: { body: stored.body, extension: stored.extension, contentType: stored.contentType },
        ...(baseline && previous ? { previous: previous.body } : {}),
        labels: { before: baseline?.runId ?? '', after: runId },
      });
    } catch (err) {
      if (!(err instanceof ComparisonFailed)) throw err;
      deps.onFailed?.(err, { taskId, runId, delivery });
      return delivery < COMPARE_ATTEMPTS ? 'retry' : failed(err.reason);
    }
    if (outcome.empty) {
      // An empty page (no text, or one colour): a failed run, never compared nor a baseline.
      const summary = 'The page showed nothing (an empty page): this run is not compared; the baseline stays.';
      await record(taskId, runId, { status: 'failed', score: 0, summary, ...(baseline ? { before: baseline.file } : {}), after: resultName, boxes: [] }, announce);
      return 'done';
    }
    const compared = outcome.compared ?? { body: stored.body, extension: stored.extension, contentType: stored.contentType };
    const after = sameAsResult ? resultName : derivedFileName(resultName, 'compared');
    if (!sameAsResult) {
      await results.write(after, compared.body, { accountId: state.accountId, contentType: compared.contentType, extension: compared.extension, ttlMs });
    }

    const comparison = outcome.comparison;
    if (!baseline || !comparison) {
      await record(taskId, runId, { status: 'baseline', score: 0, summary: 'The first compared run: the baseline.', after, boxes: [] }, announce);
      return 'done';
    }
    deps.onCompared?.(performance.now() - started, monitor.mode);
    if (!exceeds(monitor, comparison.score)) {
      await record(taskId, runId, { status: 'unchanged', score: comparison.score, summary: comparison.summary, before: baseline.file, after, boxes: [] }, announce);
      return 'done';
    }
    if (monitor.confirm && !confirmingRun && (await deps.confirm({ task: state, runId, score: comparison.score }))) return 'done';
    let diff: string | undefined;
    if (comparison.diff) {
      diff = derivedFileName(resultName, 'diff');
      await results.write(diff, comparison.diff.body, {
        accountId: state.accountId,
        contentType: comparison.diff.contentType,
        extension: comparison.diff.extension,
        ttlMs: RESULT_TTL_MS,
      });
    }
    const change: RunChange = {
      status: 'changed',
      score: comparison.score,
      summary: comparison.summary,
      before: baseline.file,
      after,
      ...(diff ? { diff } : {}),
      boxes: comparison.boxes,
    };
    await record(taskId, runId, change, announce);
    return 'done';
  };
}

export type CompareRun = ReturnType<typeof compareRun>;
