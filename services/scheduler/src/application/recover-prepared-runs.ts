import pMap from 'p-map';
import { abandonedRuns, type AbandonmentPolicy } from '../domain/task/abandoned-runs.js';
import { jobParamsOf } from '../domain/task/job-params.js';
import { decide } from '../domain/task/task.decider.js';
import type { TaskViews } from '../projections/task-views/task-views.js';
import type { Clock, RenderJobs, TaskStreams } from './ports.js';
import { renderJob, type RunStarter } from './start-run.js';
import { checkTaskQuery } from './task-query.js';

/**
 * Recovers the prepared runs their holder abandoned (see domain/task/abandoned-runs.ts), on every tick of
 * any replica. A run to start gets its job rebuilt as it was prepared (same job id, result file and
 * reservation, stamped with its due instant), published (the queue drops it if the holder's went out),
 * then recorded started; a run to cancel is given back (cancelled, its reservation released), and the
 * due-time path claims its occurrence again.
 */
export function preparedRunRecovery(deps: {
  streams: TaskStreams;
  views: Pick<TaskViews, 'catchUp' | 'preparedDueBy'>;
  jobs: Pick<RenderJobs, 'publish'>;
  starter: Pick<RunStarter, 'giveBack'>;
  clock: Clock;
  policy: AbandonmentPolicy;
  /** Runs recovered at once, at most. */
  concurrency: number;
  onRecovered?: (run: { taskId: number; runId: string; action: 'start' | 'cancel' }) => void;
  onError?: (err: unknown, taskId: number) => void;
}) {
  const { streams, views, jobs, starter, clock, policy } = deps;

  async function recoverTask(taskId: number, now: number): Promise<number> {
    const { state } = await streams.load(taskId);
    if (state.status !== 'Active') return 0;
    let recovered = 0;
    for (const { runId, run, action } of abandonedRuns(state, now, policy)) {
      const checked = checkTaskQuery(state.definition.api, state.definition.query);
      const { jobId, fileName, reservationId } = run;
      if (action === 'start' && checked.params) {
        const params = jobParamsOf(state, checked.params, { trigger: 'schedule' });
        await jobs.publish(renderJob(state, runId, { jobId, fileName, reservationId }, params, run.dueAt));
        await streams.change(taskId, (current) => decide({ type: 'StartPreparedRun', data: { runId }, metadata: { now } }, current));
      } else {
        await starter.giveBack({ taskId, runId, accountId: state.accountId, ...(reservationId ? { reservationId } : {}) });
      }
      recovered++;
      deps.onRecovered?.({ taskId, runId, action: action === 'start' && checked.params ? 'start' : 'cancel' });
    }
    return recovered;
  }

  /** Recovers every abandoned run; answers how many were. */
  return async function recover(): Promise<number> {
    await views.catchUp();
    const now = clock.now().getTime();
    const taskIds = new Set(views.preparedDueBy(now - policy.graceMs).map((r) => r.taskId));
    let recovered = 0;
    await pMap(taskIds, async (taskId) => {
      try {
        recovered += await recoverTask(taskId, now);
      } catch (err) {
        deps.onError?.(err, taskId);
      }
    }, { concurrency: deps.concurrency });
    return recovered;
  };
}

export type PreparedRunRecovery = ReturnType<typeof preparedRunRecovery>;
