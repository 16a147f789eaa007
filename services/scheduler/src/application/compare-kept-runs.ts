import { createHash } from 'node:crypto';
import { AppError } from '@app/errors';
import { exceeds, keepOf, type RunChange } from '../domain/monitor/monitor.js';
import { taskNotFound } from '../domain/task/task.decider.js';
import type { RunView, TaskViews } from '../projections/task-views/task-views.js';
import type { Clock, PairComparer, ResultStore } from './ports.js';
import { RESULT_TTL_MS } from './start-run.js';

/** A run's comparison kept: it has a compared file (a baseline, unchanged or changed run). */
const KEPT_STATUSES: ReadonlySet<string> = new Set(['baseline', 'unchanged', 'changed']);

export const runNotFound = (parameter: 'from' | 'to', runId: string) =>
  new AppError('run_not_found', `Run ${runId.slice(0, 80)} (${parameter}) is not one of the task's kept runs.`, {
    details: [{ parameter, message: `${parameter} is not one of the task's kept runs (the last monitor.keep compared runs)` }],
  });

/** The diff of two compared files: the same name for the same pair, as unguessable as a result's. */
export const pairDiffName = (before: string, after: string): string =>
  createHash('sha256').update(`${before}\0${after}\0pair-diff`).digest('base64url');

/** Two kept runs compared: a run's change, with the earlier run as `before` (`compared`: Unix ms). */
export type PairChange = RunChange & { comparedAt: number };

export interface CompareKeptRunsDeps {
  views: Pick<TaskViews, 'catchUp' | 'get' | 'runs'>;
  results: ResultStore;
  /** The comparison's work runs there (worker threads with a deadline), never on the serving thread. */
  comparer: PairComparer;
  clock: Clock;
}

/**
 * Compares any two kept runs of a monitoring task (GET /v1/tasks/{id}/compare): the kept runs are the last
 * `monitor.keep` runs that have a compared file (baseline, unchanged, changed), newest first. The answer has
 * the shape of a run's change (`changed` when the score reaches the monitor's threshold, else `unchanged`);
 * a diff file, when the two differ, is written like a change's (24 hours). Another account's task is
 * task_not_found; a run that is not kept (unknown, failed, older than `keep`, its file expired) is
 * run_not_found naming `from` or `to`.
 */
export function compareKeptRuns(deps: CompareKeptRunsDeps) {
  const { views, results, comparer, clock } = deps;

  return async (accountId: string, taskId: number, fromId: string, toId: string): Promise<PairChange> => {
    await views.catchUp();
    const task = views.get(accountId, taskId);
    if (!task) throw taskNotFound(taskId);
    const monitor = task.monitor;
    const kept: RunView[] = monitor
      ? (views.runs(accountId, taskId) ?? []).filter((r) => r.change && KEPT_STATUSES.has(r.change.status) && r.change.after).slice(0, keepOf(monitor))
      : [];
    const keptRun = (parameter: 'from' | 'to', runId: string) => {
      const run = kept.find((r) => r.runId === runId);
      if (!run) throw runNotFound(parameter, runId);
      return { runId, file: run.change!.after };
    };
    const from = keptRun('from', fromId);
    const to = keptRun('to', toId);
    const [before, after] = await Promise.all([results.read(from.file), results.read(to.file)]);
    if (!before) throw runNotFound('from', fromId);
    if (!after) throw runNotFound('to', toId);

    const comparison = await comparer.comparePair({
      monitor: monitor!,
      before: before.body,
      after: after.body,
      labels: { before: from.runId, after: to.runId },
    });
    let diff: string | undefined;
    if (comparison.diff && comparison.score > 0) {
      diff = pairDiffName(from.file, to.file);
      await results.write(diff, comparison.diff.body, {
        accountId,
        contentType: comparison.diff.contentType,
        extension: comparison.diff.extension,
        ttlMs: RESULT_TTL_MS,
      });
    }
    return {
      status: exceeds(monitor!, comparison.score) ? 'changed' : 'unchanged',
      score: comparison.score,
      summary: comparison.summary,
      before: from.file,
      after: to.file,
      ...(diff ? { diff } : {}),
      boxes: comparison.boxes,
      comparedAt: clock.now().getTime(),
    };
  };
}

export type CompareKeptRuns = ReturnType<typeof compareKeptRuns>;
