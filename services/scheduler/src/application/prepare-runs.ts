import { isDeepStrictEqual } from 'node:util';
import pMap from 'p-map';
import { ack, type Disposition } from '@app/errors';
import { decide } from '../domain/task/task.decider.js';
import { runIdOf, type TaskDefinition } from '../domain/task/task.js';
import type { TaskViews } from '../projections/task-views/task-views.js';
import type { Clock, PreparedJob, TaskStreams } from './ports.js';
import type { ClaimedAhead, RunStarter } from './start-run.js';

/** A run ready to start: its job goes out at the due instant unless its task changed meanwhile. */
interface ReadyRun extends Omit<ClaimedAhead, 'task'> {
  /** What the job was built from: a task that no longer matches it is not run from it. */
  definition: JobDefinition;
}

/**
 * Publishes of a prepared job before its run is given back. Another publish of the same job is harmless
 * (the queue keeps one message per job id), and it is what tells a job that reached the queue but whose
 * acknowledgement was lost (a timeout) from one that did not: cancelling the first would let the due-time
 * path render the run a second time, under another job id.
 */
const PUBLISH_ATTEMPTS = 3;

async function publishPrepared(job: PreparedJob): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await job.publish();
    } catch (err) {
      if (attempt >= PUBLISH_ATTEMPTS) throw err;
    }
  }
}

type JobDefinition = Pick<TaskDefinition, 'api' | 'query' | 'crontab' | 'timezone' | 'monitor' | 'keepSession'>;

/**
 * The fields of a task's definition its prepared job was built from (the job's parameters, `jobParamsOf`,
 * and its occurrence), as plain data: a monitor recorded with a field left out and one read with it
 * undefined are the same monitor.
 */
const definitionOf = (t: JobDefinition): JobDefinition =>
  JSON.parse(
    JSON.stringify({ api: t.api, query: t.query, crontab: t.crontab, timezone: t.timezone, monitor: t.monitor ?? null, keepSession: t.keepSession ?? false }),
  ) as JobDefinition;

/**
 * Runs prepared ahead of their due instant, so that the instant itself costs one publish per run.
 *
 * `prepare` (one replica per run, from the shared prepare consumer) starts a run through the ahead trigger
 * of the run-start pipeline (start-run.ts) in the lead time: checked, admitted, claimed (`TaskRunPrepared`),
 * its job made ready and held here. A run that cannot be prepared is left to the due-time path.
 *
 * `startDue` (at the due instant) publishes the jobs of the runs due, then records them started. A run
 * whose task was disabled, deleted or changed in the lead time (its query, schedule, monitor or kept
 * session: anything its job was built from) is cancelled instead: its job is never published and its
 * reservation is released, so quota is charged only for renders that start (a changed task's occurrence
 * is claimable again and runs the usual way, with its definition as of its start).
 */
export function runPreparation(deps: {
  starter: Pick<RunStarter, 'ahead' | 'giveBack'>;
  streams: TaskStreams;
  views: Pick<TaskViews, 'catchUp' | 'byId'>;
  clock: Clock;
  /** Publishes and records at once, at most. */
  concurrency: number;
  /** Told, for every prepared run published, how long after its due time that happened (metrics). */
  onDispatched?: (lagMs: number) => void;
  /** A new earliest due instant among the ready runs (the caller arms a timer for it). */
  onReady?: (dueAt: number) => void;
  onError?: (err: unknown, taskId: number) => void;
}) {
  const { streams, views, clock, starter } = deps;
  const ready = new Map<string, ReadyRun>();
  const now = () => clock.now().getTime();

  /** Prepares the run of a prepare request (always acknowledged: a run not prepared takes the due-time path). */
  async function prepare(request: { taskId: number; dueAt: number }): Promise<Disposition> {
    const runId = runIdOf(request.taskId, request.dueAt);
    if (ready.has(runId) || request.dueAt <= now()) return ack;
    const claimed = await starter.ahead(request);
    if (!claimed) return ack;
    const { task, ...run } = claimed;
    ready.set(runId, { ...run, definition: definitionOf({ ...task.definition }) });
    deps.onReady?.(run.dueAt);
    return ack;
  }

  const cancel = (run: ReadyRun) => starter.giveBack(run);

  /** Starts every ready run that is due; returns how many started. */
  async function startDue(): Promise<number> {
    const at = now();
    const due = [...ready.values()].filter((r) => r.dueAt <= at);
    if (due.length === 0) return 0;
    for (const r of due) ready.delete(r.runId);
    await views.catchUp();
    const starting: ReadyRun[] = [];
    const cancelled: ReadyRun[] = [];
    for (const r of due) {
      const view = views.byId(r.taskId);
      (view && view.enabled && isDeepStrictEqual(definitionOf(view), r.definition) ? starting : cancelled).push(r);
    }
    // The jobs first, all of them: recording the starts is not on the way to the renderers.
    const published: ReadyRun[] = [];
    await pMap(starting, async (r) => {
      try {
        await publishPrepared(r.job);
        published.push(r);
        deps.onDispatched?.(now() - r.dueAt);
      } catch (err) {
        deps.onError?.(err, r.taskId);
        cancelled.push(r);
      }
    }, { concurrency: deps.concurrency });
    await pMap(published, async (r) => {
      try {
        await streams.change(r.taskId, (current) => decide({ type: 'StartPreparedRun', data: { runId: r.runId }, metadata: { now: now() } }, current));
      } catch (err) {
        deps.onError?.(err, r.taskId);
      }
    }, { concurrency: deps.concurrency });
    await pMap(cancelled, async (r) => {
      try {
        await cancel(r);
      } catch (err) {
        deps.onError?.(err, r.taskId);
      }
    }, { concurrency: deps.concurrency });
    return published.length;
  }

  /** Gives every ready run back (stopping): cancelled and released, so the due-time path of any replica runs it. */
  async function cancelAll(): Promise<void> {
    const all = [...ready.values()];
    ready.clear();
    await pMap(all, (r) => cancel(r).catch((err: unknown) => deps.onError?.(err, r.taskId)), { concurrency: deps.concurrency });
  }

  return {
    prepare,
    startDue,
    cancelAll,
    /** The earliest due instant among the ready runs. */
    nextDueAt: () => Math.min(...[...ready.values()].map((r) => r.dueAt)),
    /** Ready runs not started yet (stopping releases nothing: they stay claimed in the store). */
    readyCount: () => ready.size,
  };
}

export type RunPreparation = ReturnType<typeof runPreparation>;
