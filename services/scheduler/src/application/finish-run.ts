import type { RenderFinished } from '@app/proto/render';
import { decide } from '../domain/task/task.decider.js';
import type { Clock, TaskStreams } from './ports.js';
import { announcementOf } from './announcement.js';

/**
 * Records the outcome of a task run's render (its quota reservation is auth-quota's to settle, from the
 * same event). A redelivery is safe: the record is only appended once. The render of a prepared run whose
 * start is not recorded (its job went out first, and its holder died or has not recorded it yet) records
 * the run started, then finished: a rendered run is always recorded, as it is charged.
 */
export function finishRun(deps: { streams: TaskStreams; clock: Clock }) {
  const { streams, clock } = deps;

  return async (finished: RenderFinished): Promise<void> => {
    if (finished.origin !== 'task' || !finished.task_id || !finished.run_id) return;
    const taskId = Number(finished.task_id);
    if (!Number.isSafeInteger(taskId) || taskId < 1) return;
    const runId = finished.run_id;
    const { state } = await streams.load(taskId);
    if (state.status === 'Absent') return;
    const open = state.openRuns[runId];
    const prepared = !open && state.status === 'Active' && state.preparedRuns?.[runId]?.jobId === finished.job_id;
    if (!prepared && (!open || (open.jobId && open.jobId !== finished.job_id))) return;

    const succeeded = finished.status === 'succeeded' && finished.result !== undefined;

    // A monitoring task's failed run may start a failing episode, announced where its changes are.
    const announce = !succeeded && state.status === 'Active' ? announcementOf(state) : undefined;
    await streams.change(taskId, (current) =>
      decide(
        {
          type: 'FinishRun',
          data: succeeded
            ? { runId, jobId: finished.job_id, outcome: 'succeeded', file: finished.result!.object_name }
            : {
                runId,
                jobId: finished.job_id,
                outcome: 'failed',
                error: { code: finished.error?.code || 'render_failed', message: finished.error?.message || 'The render failed.' },
                ...(announce ? { announce } : {}),
              },
          metadata: { now: clock.now().getTime() },
        },
        current,
      ),
    );
  };
}

export type FinishRun = ReturnType<typeof finishRun>;
