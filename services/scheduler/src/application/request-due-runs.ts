import pMap from 'p-map';
import { decide } from '../domain/task/task.decider.js';
import { runIdOf } from '../domain/task/task.js';
import { dueOccurrence } from '../schedule/occurrences.js';
import { cachedNextOccurrence } from '../schedule/occurrence-cache.js';
import type { TaskView, TaskViews } from '../projections/task-views/task-views.js';
import type { Clock, TaskStreams } from './ports.js';
import type { RunPreparation } from './prepare-runs.js';

/** Decisions: after downtime only the most recent missed occurrence runs, and only if less than an hour old. */
export const CATCH_UP_WINDOW_MS = 3_600_000;

/** Claims at once, at most (the store commits the claims made at the same moment together). */
const CLAIM_CONCURRENCY = 256;

export interface TickResult {
  /** Runs this replica started (claimed). */
  started: number;
  /** Claims another replica (or an earlier tick) had already made. */
  alreadyClaimed: number;
}

/**
 * One tick of the scheduler: every enabled task whose next occurrence has come gets a claim of its due
 * occurrence, appended to its stream at the version read. Any number of replicas may tick at once: the
 * store lets exactly one claim of an occurrence commit, and the decider refuses an occurrence that is not
 * after the last claimed one.
 */
export function dueRunRequests(deps: {
  views: TaskViews;
  streams: TaskStreams;
  clock: Clock;
  /** How long before its due instant a run is prepared (0: never; every run takes the due-time path). */
  prepareLeadMs?: number;
  /** Occurrences that came within the lead, once each (their runs are to be prepared). */
  onUpcoming?: (runs: { taskId: number; dueAt: number }[]) => Promise<void>;
  onError?: (err: unknown, taskId: number) => void;
}) {
  const { views, streams, clock } = deps;
  const leadMs = deps.prepareLeadMs ?? 0;
  /** The occurrence each task was last announced for (so it is announced once). */
  const announced = new Map<number, number>();
  /** Next occurrence per task, recomputed whenever the task's stream moves. */
  const nextDue = new Map<number, { version: number; at: number | undefined }>();
  const next = cachedNextOccurrence();

  const since = (t: TaskView) => Math.max(t.scheduleSince, t.lastDueAt ?? Number.NEGATIVE_INFINITY);

  return async function tick(): Promise<TickResult> {
    await views.catchUp();
    const now = clock.now().getTime();
    const due: { taskId: number; dueAt: number }[] = [];
    const upcoming: { taskId: number; dueAt: number }[] = [];
    const live = new Set<number>();
    for (const task of views.schedulable()) {
      live.add(task.id);
      let entry = nextDue.get(task.id);
      if (!entry || entry.version !== task.version) {
        entry = { version: task.version, at: next(task.crontab, task.timezone, since(task)) };
        nextDue.set(task.id, entry);
      }
      if (entry.at === undefined) continue;
      if (entry.at > now) {
        if (entry.at <= now + leadMs && announced.get(task.id) !== entry.at) {
          announced.set(task.id, entry.at);
          upcoming.push({ taskId: task.id, dueAt: entry.at });
        }
        continue;
      }
      const dueAt = dueOccurrence({
        crontab: task.crontab,
        timeZone: task.timezone,
        since: since(task),
        now,
        catchUpWindowMs: CATCH_UP_WINDOW_MS,
        next,
      });
      if (dueAt === undefined) {
        // Every missed occurrence is too old to catch up: wait for the next one.
        entry.at = next(task.crontab, task.timezone, now);
        continue;
      }
      due.push({ taskId: task.id, dueAt });
    }
    for (const id of nextDue.keys()) if (!live.has(id)) nextDue.delete(id);
    for (const id of announced.keys()) if (!live.has(id)) announced.delete(id);
    if (upcoming.length > 0) await deps.onUpcoming?.(upcoming).catch((err: unknown) => deps.onError?.(err, upcoming[0]!.taskId));

    const result: TickResult = { started: 0, alreadyClaimed: 0 };
    await pMap(due, async ({ taskId, dueAt }) => {
      try {
        const change = await streams.change(taskId, (state) =>
          decide({ type: 'StartRun', data: { runId: runIdOf(taskId, dueAt), dueAt }, metadata: { now } }, state),
        );
        if (change.events.length > 0) result.started++;
        else result.alreadyClaimed++;
      } catch (err) {
        deps.onError?.(err, taskId);
      }
    }, { concurrency: CLAIM_CONCURRENCY });
    return result;
  };
}

export type DueRunTick = ReturnType<typeof dueRunRequests>;

/**
 * What the scheduler's timers run. `startDue` (at a prepared run's due instant, and on every tick) starts
 * the prepared runs that are due; `tick` (every tick) does that, recovers the prepared runs abandoned by
 * their holder (a replica that died), then claims the due occurrences and announces the upcoming ones.
 */
export function dueRuns(deps: {
  preparation: Pick<RunPreparation, 'startDue' | 'readyCount' | 'nextDueAt'>;
  /** Recovers abandoned prepared runs; answers how many (recover-prepared-runs.ts). */
  recoverAbandoned?: () => Promise<number>;
  requestDue: DueRunTick;
  /** Runs started: their events are to be relayed now. */
  onStarted: () => void;
  /** The earliest due instant among the runs still prepared (the caller arms a timer for it). */
  arm: (dueAt: number) => void;
}) {
  const { preparation } = deps;
  const startDue = async (): Promise<void> => {
    const started = await preparation.startDue();
    if (started > 0) deps.onStarted();
    if (preparation.readyCount() > 0) deps.arm(preparation.nextDueAt());
  };
  return {
    startDue,
    async tick(): Promise<TickResult> {
      await startDue();
      // Before the claims: a cancelled run's occurrence is claimed again by this same tick.
      if (((await deps.recoverAbandoned?.()) ?? 0) > 0) deps.onStarted();
      return deps.requestDue();
    },
  };
}
