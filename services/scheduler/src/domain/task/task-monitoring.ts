import { alertAfterFailuresOf } from '../monitor/monitor.js';
import type {
  ActiveTask,
  ChangeAnnouncement,
  CompareRun,
  ConfirmRun,
  Task,
  TaskEvent,
  TaskFailing,
  TaskRecovered,
  TaskRunCompared,
  TaskRunConfirming,
  TaskRunFinished,
  TaskUpdated,
} from './task.js';

/** The monitoring side of the task aggregate: which runs await a comparison, and the baseline they meet. */

const without = <R>(record: Record<string, R> | undefined, key: string): Record<string, R> => {
  const { [key]: _removed, ...rest } = record ?? {};
  return rest;
};

/** Fields whose change makes earlier results incomparable: the next run is a new baseline. */
const BASELINE_FIELDS = ['api', 'query', 'monitor'] as const;

/** What a monitoring run's event says of its health: a failed run, a run that worked, or nothing yet. */
function healthOf(event: TaskEvent): { failed: string } | 'ok' | undefined {
  if (event.type === 'TaskRunFinished') {
    const { outcome, error } = event.data;
    return outcome === 'failed' ? { failed: error ? `${error.code}: ${error.message}` : 'The render failed.' } : undefined;
  }
  if (event.type === 'TaskRunCompared') return event.data.change.status === 'failed' ? { failed: event.data.change.summary } : 'ok';
  return undefined;
}

export function evolveMonitoring(
  state: ActiveTask,
  event: TaskUpdated | TaskRunFinished | TaskRunCompared | TaskRunConfirming | TaskFailing | TaskRecovered,
): ActiveTask {
  const health = state.definition.monitor ? healthOf(event) : undefined;
  if (health) state = { ...state, failures: health === 'ok' ? 0 : (state.failures ?? 0) + 1 };
  switch (event.type) {
    case 'TaskFailing':
      return { ...state, failing: { episodeId: event.data.episodeId, since: event.data.failingAt } };
    case 'TaskRecovered':
      return { ...state, failing: null };
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

/**
 * The failing episode a run's events start or end (decisions: Monitoring people can rely on): after
 * `alert_after_failures` failed runs in a row the task is failing (announced once, its episode named by
 * the run that tripped it); the next run that works ends it (announced once). `events` are what the
 * command decided; the episode's event follows them.
 */
export function decideHealth(state: Task, events: TaskEvent[], now: number, announce?: ChangeAnnouncement): TaskEvent[] {
  if (state.status !== 'Active' || !state.definition.monitor) return events;
  let failures = state.failures ?? 0;
  let failing = state.failing ?? null;
  const out = [...events];
  const threshold = alertAfterFailuresOf(state.definition.monitor);
  for (const event of events) {
    const health = healthOf(event);
    if (!health || !('runId' in event.data)) continue;
    const { runId } = event.data as { runId: string };
    if (health === 'ok') {
      failures = 0;
      if (failing) {
        out.push({ type: 'TaskRecovered', data: { taskId: state.taskId, runId, episodeId: failing.episodeId, recoveredAt: now, ...(announce ? { announce } : {}) } });
        failing = null;
      }
      continue;
    }
    failures += 1;
    if (!failing && threshold > 0 && failures >= threshold) {
      out.push({
        type: 'TaskFailing',
        data: { taskId: state.taskId, runId, episodeId: runId, failures, reason: health.failed, failingAt: now, ...(announce ? { announce } : {}) },
      });
      failing = { episodeId: runId, since: now };
    }
  }
  return out;
}
