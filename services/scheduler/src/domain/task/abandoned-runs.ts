import { sameMonitor } from '../monitor/monitor.js';
import type { PreparedRun, Task, TaskDefinition } from './task.js';

/**
 * Prepared runs whose holder is gone. A run prepared ahead waits for its due instant in the memory of the
 * replica that prepared it; a replica that dies (SIGKILL, a crash) takes it along, and nothing else would
 * ever start or cancel it: its occurrence stays claimed and its reservation held. A prepared run still only
 * prepared `graceMs` after its due instant is abandoned, and whoever ticks recovers it.
 */

/** The fields of a definition a run's job is built from: its parameters (`jobParamsOf`) and its occurrence. */
const JOB_FIELDS = ['api', 'query', 'crontab', 'timezone', 'monitor', 'keepSession'] as const;

/** True when a run's job built from `a` is the job built from `b`. */
export function sameJobDefinition(a: TaskDefinition, b: TaskDefinition): boolean {
  return JOB_FIELDS.every((field) => {
    if (field === 'monitor') return sameMonitor(a.monitor, b.monitor);
    if (field === 'keepSession') return (a.keepSession ?? false) === (b.keepSession ?? false);
    return a[field] === b[field];
  });
}

/** True when a recorded change of a definition (its differing fields) changes the jobs built from it. */
export const changesJob = (changes: Partial<TaskDefinition>): boolean => JOB_FIELDS.some((field) => field in changes);

/** The prepared runs `outdated` picks marked outdated: their jobs no longer stand as they were built. */
export function outdating(runs: Record<string, PreparedRun>, outdated: (run: PreparedRun) => boolean): Record<string, PreparedRun> {
  return Object.fromEntries(Object.entries(runs).map(([runId, run]) => [runId, outdated(run) ? { ...run, outdated: true } : run]));
}

export interface AbandonmentPolicy {
  /** How long after its due instant a run still only prepared is taken as abandoned. */
  graceMs: number;
  /**
   * How long after its due instant its job may be published again: the render-jobs queue drops a second
   * publish of a job id within its duplicate window, counted from the first publish (at the due instant or
   * later); past it, a job that went out would be rendered twice.
   */
  republishWindowMs: number;
}

/**
 * What becomes of an abandoned run: `start` (its job published again under the same job id, identical to
 * the one prepared, so a job that went out already is not rendered twice, and the run recorded started),
 * or `cancel` (its reservation released and its occurrence claimable again, so it runs late rather than
 * never).
 */
export interface Recovery {
  runId: string;
  run: PreparedRun;
  action: 'start' | 'cancel';
}

/**
 * The abandoned prepared runs of a task at `now`, each with its recovery. A run starts when its job can
 * be rebuilt as it was prepared (the task's definition unchanged in every field the job is built from,
 * and not disabled before the due instant: what was checked and admitted is what renders) while the
 * queue still deduplicates its job id; any other is cancelled.
 */
export function abandonedRuns(state: Task, now: number, policy: AbandonmentPolicy): Recovery[] {
  if (state.status !== 'Active') return [];
  return Object.entries(state.preparedRuns ?? {})
    .filter(([, run]) => run.dueAt + policy.graceMs <= now)
    .map(([runId, run]) => ({
      runId,
      run,
      action: !run.outdated && now - run.dueAt <= policy.republishWindowMs ? 'start' : 'cancel',
    }));
}
