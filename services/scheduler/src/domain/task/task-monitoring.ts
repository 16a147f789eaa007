import type { ActiveTask, CompareRun, ConfirmRun, Task, TaskEvent, TaskRunCompared, TaskRunConfirming, TaskRunFinished, TaskUpdated } from './task.js';

/** The monitoring side of the task aggregate: which runs await a comparison, and the baseline they meet. */

const without = <R>(record: Record<string, R> | undefined, key: string): Record<string, R> => {
  const { [key]: _removed, ...rest } = record ?? {};
  return rest;
};

/** Fields whose change makes earlier results incomparable: the next run is a new baseline. */
const BASELINE_FIELDS = ['api', 'query', 'monitor'] as const;

export function evolveMonitoring(state: ActiveTask, event: TaskUpdated | TaskRunFinished | TaskRunCompared | TaskRunConfirming): ActiveTask {
  switch (event.type) {
    case 'TaskUpdated': {
      const { changes } = event.data;
      // Only fields that differed are recorded (the decider compares monitors by value).
      const reset = BASELINE_FIELDS.some((f) => f in changes);
      return reset ? { ...state, baseline: null, uncompared: {}, confirming: {} } : state;
    }
    case 'TaskRunFinished': {
      const { runId, outcome, file, finishedAt } = event.data;
      if (!state.definition.monitor || outcome !== 'succeeded' || !file) return state;
      return { ...state, uncompared: { ...(state.uncompared ?? {}), [runId]: { file, finishedAt } } };
    }
    case 'TaskRunConfirming': {
      const { jobId, runId, confirmingAt, fileName, reservationId } = event.data;
      const confirming = { runId, startedAt: confirmingAt, fileName, ...(reservationId ? { reservationId } : {}) };
      return { ...state, confirming: { ...(state.confirming ?? {}), [jobId]: confirming } };
    }
    case 'TaskRunCompared': {
      const { runId, change } = event.data;
      const confirming = Object.fromEntries(Object.entries(state.confirming ?? {}).filter(([, c]) => c.runId !== runId));
      // A failed comparison leaves the baseline as it was: the next run is compared with it.
      const baseline = change.status === 'failed' ? state.baseline : { runId, file: change.after };
      return { ...state, baseline, uncompared: without(state.uncompared, runId), confirming };
    }
  }
}

/** The run a confirming render's job belongs to, if it is one. */
export const confirmingRunOf = (state: Task, jobId: string): string | undefined =>
  state.status === 'Active' ? state.confirming?.[jobId]?.runId : undefined;

export function decideMonitoring(command: CompareRun | ConfirmRun, state: Task): TaskEvent[] {
  if (state.status !== 'Active' || !state.definition.monitor) return [];
  const { now } = command.metadata;
  const { runId } = command.data;
  if (!state.uncompared?.[runId]) return [];
  if (command.type === 'ConfirmRun') {
    if (Object.values(state.confirming ?? {}).some((c) => c.runId === runId)) return [];
    const { jobId, fileName, reservationId, score } = command.data;
    return [
      {
        type: 'TaskRunConfirming',
        data: { taskId: state.taskId, runId, jobId, fileName, ...(reservationId ? { reservationId } : {}), score, confirmingAt: now },
      },
    ];
  }
  const { change, announce } = command.data;
  return [
    {
      type: 'TaskRunCompared',
      data: { taskId: state.taskId, runId, change, comparedAt: now, ...(announce && change.status === 'changed' ? { announce } : {}) },
    },
  ];
}
