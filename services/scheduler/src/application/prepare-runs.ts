import pMap from 'p-map';
import { planRestrictedFeaturesOf } from '@app/render-params';
import { decide } from '../domain/task/task.decider.js';
import { runIdOf, type ActiveTask } from '../domain/task/task.js';
import { boundedMemo } from '../bounded-memo.js';
import type { TaskView, TaskViews } from '../projections/task-views/task-views.js';
import type { PreparedJob } from './ports.js';
import { renderJob, type RunDeps } from './dispatch-run.js';
import { checkTaskQuery } from './task-query.js';

/** A run ready to start: its job goes out at the due instant unless its task changed meanwhile. */
interface ReadyRun {
  taskId: number;
  runId: string;
  dueAt: number;
  accountId: string;
  /** Encoded ahead: at the due instant, publishing it is all that is left. */
  job: PreparedJob;
  reservationId?: string;
  /** What the job was built from: a task that no longer matches it is not run from it. */
  definition: string;
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

const definitionOf = (t: Pick<TaskView, 'api' | 'query' | 'crontab' | 'timezone'>) => `${t.api}\n${t.query}\n${t.crontab}\n${t.timezone}`;

/**
 * Runs prepared ahead of their due instant, so that the instant itself costs one publish per run.
 *
 * `prepare` (one replica per run, from the shared prepare consumer) does in the lead time what a run
 * needs before its job: the query checked with its operation's rules, the page with the SSRF policy, the
 * account admitted by auth-quota (one unit reserved), and the occurrence claimed in the task's stream
 * (`TaskRunPrepared`, at the version read: one claim per occurrence across replicas). A run that cannot be
 * prepared (a refusal, an unreachable service) is left to the due-time path, which records its failure.
 *
 * `startDue` (at the due instant) publishes the jobs of the runs due, then records them started. A run
 * whose task was disabled, deleted or changed in the lead time is cancelled instead: its job is never
 * published and its reservation is released, so quota is charged only for renders that start (a changed
 * task's occurrence is claimable again and runs the usual way, with its new definition).
 */
export function runPreparation(deps: RunDeps & {
  views: TaskViews;
  /** Publishes and records at once, at most. */
  concurrency: number;
  /** A new earliest due instant among the ready runs (the caller arms a timer for it). */
  onReady?: (dueAt: number) => void;
  onError?: (err: unknown, taskId: number) => void;
}) {
  const { streams, views, authQuota, jobs, guard, clock } = deps;
  const checkQuery = boundedMemo(checkTaskQuery, (api, query) => `${api} ${query}`);
  const ready = new Map<string, ReadyRun>();
  const now = () => clock.now().getTime();

  /** A reservation no job will carry: announced so that auth-quota releases it. */
  const release = (accountId: string, reservationId: string | undefined) =>
    reservationId ? jobs.withoutJob({ accountId, reservationId }).catch(() => undefined) : undefined;

  async function prepare(request: { taskId: number; dueAt: number }): Promise<void> {
    const { taskId, dueAt } = request;
    const runId = runIdOf(taskId, dueAt);
    if (ready.has(runId) || dueAt <= now()) return;
    const { state } = await streams.load(taskId);
    if (state.status !== 'Active' || !state.enabled || (state.lastDueAt !== null && dueAt <= state.lastDueAt)) return;
    const checked = checkQuery(state.definition.api, state.definition.query);
    if (!checked.params) return;
    const { params } = checked;
    try {
      if (params.url) await guard.check(params.url, 'url');
    } catch {
      return;
    }
    let reservationId: string | undefined;
    try {
      ({ reservationId } = await authQuota.admitRun({ accountId: state.accountId, features: ['tasks', ...planRestrictedFeaturesOf(params)] }));
    } catch {
      return;
    }
    const ids = { jobId: deps.newId(), fileName: deps.newFileName() };
    let change;
    try {
      change = await streams.change(taskId, (current) =>
        decide({ type: 'PrepareRun', data: { runId, dueAt, ...ids, reservationId }, metadata: { now: now() } }, current),
      );
    } catch (err) {
      await release(state.accountId, reservationId);
      throw err;
    }
    if (change.events.length === 0) {
      // Claimed meanwhile (by the due-time path) or disabled: this reservation is not needed.
      await release(state.accountId, reservationId);
      return;
    }
    const task = change.after as ActiveTask;
    // The job is stamped with its due instant, the moment it will be published; it carries the reservation.
    let job: PreparedJob;
    try {
      job = await jobs.prepare(renderJob(task, runId, { ...ids, reservationId }, params, dueAt));
    } catch (err) {
      // Claimed, and cannot start from here: given back to the due-time path, its reservation released.
      await cancel({ taskId, runId, accountId: state.accountId, ...(reservationId ? { reservationId } : {}) });
      throw err;
    }
    ready.set(runId, { taskId, runId, dueAt, accountId: state.accountId, job, definition: definitionOf({ ...task.definition }), ...(reservationId ? { reservationId } : {}) });
    deps.onReady?.(dueAt);
  }

  async function cancel(run: Pick<ReadyRun, 'taskId' | 'runId' | 'accountId' | 'reservationId'>): Promise<void> {
    await streams.change(run.taskId, (current) => decide({ type: 'CancelPreparedRun', data: { runId: run.runId }, metadata: { now: now() } }, current));
    await release(run.accountId, run.reservationId);
  }

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
      (view && view.enabled && definitionOf(view) === r.definition ? starting : cancelled).push(r);
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
