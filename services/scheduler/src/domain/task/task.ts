import { OPERATIONS } from '@app/render-params';
import type { Monitor, NotifyChannel, RunChange } from '../monitor/monitor.js';

/**
 * The scheduled task aggregate: commands, events and state. Times are Unix milliseconds; every time and
 * id comes in on the command, so deciding is pure.
 */

/** The operations a task can run: every render operation of the API. */
export const TASK_APIS = OPERATIONS;
export type TaskApi = (typeof TASK_APIS)[number];

export const FREQUENCIES = ['every_minute', 'every_hour', 'every_day', 'every_month', 'custom'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** The writable fields of a task once validated and normalised (crontab always set, derived or custom). */
export interface TaskDefinition {
  name: string;
  api: TaskApi;
  query: string;
  frequency: Frequency;
  crontab: string;
  timezone: string;
  /** Change monitoring (absent or null: the task only renders). */
  monitor?: Monitor | null;
  /** The page's session (cookies, local storage) is kept from one successful run to the next (absent: false). */
  keepSession?: boolean;
}

export type RunOutcome = 'succeeded' | 'failed';

export interface RunError {
  code: string;
  message: string;
}

export const taskStreamId = (taskId: number): string => `task-${taskId}`;

/** One run per occurrence: the id is the task and the occurrence's instant, so two claims of it collide. */
export const runIdOf = (taskId: number, dueAt: number): string => `${taskId}-${Math.floor(dueAt / 1000)}`;

/**
 * A run asked for by its owner (outside the schedule): "<task id>-now-<unix ms>-<8 characters of its job's id>",
 * apart from every occurrence's, and from another run asked for in the same millisecond.
 */
export const manualRunIdOf = (taskId: number, startedAt: number, jobId: string): string =>
  `${taskId}-now-${startedAt}-${jobId.replace(/[^A-Za-z0-9]/g, '').slice(0, 8)}`;

/** What started a run: its schedule's occurrence, or its owner (`POST /v1/tasks/{id}/runs`). */
export type RunTrigger = 'schedule' | 'manual';

/** `task-12` → 12; undefined for other streams. */
export function taskIdOfStream(streamId: string): number | undefined {
  const m = /^task-(\d+)$/.exec(streamId);
  return m ? Number(m[1]) : undefined;
}

// ---- Events -------------------------------------------------------------------------------------------

export type TaskCreated = {
  type: 'TaskCreated';
  data: { taskId: number; accountId: string; definition: TaskDefinition; enabled: boolean; createdAt: number; filesBaseUrl?: string };
};
export type TaskUpdated = {
  type: 'TaskUpdated';
  data: { taskId: number; changes: Partial<TaskDefinition>; updatedAt: number };
};
export type TaskEnabled = { type: 'TaskEnabled'; data: { taskId: number; enabledAt: number } };
export type TaskDisabled = { type: 'TaskDisabled'; data: { taskId: number; disabledAt: number } };
export type TaskDeleted = { type: 'TaskDeleted'; data: { taskId: number; deletedAt: number } };
/**
 * A run prepared ahead of its due instant: its occurrence is claimed and admitted (quota reserved), its job
 * is ready. It is not a run yet: it starts when its job is published at the due instant, or is cancelled.
 */
export type TaskRunPrepared = {
  type: 'TaskRunPrepared';
  data: { taskId: number; runId: string; dueAt: number; jobId: string; fileName: string; reservationId?: string; preparedAt: number };
};
/**
 * A prepared run that never started (its task was disabled or changed in the lead time). Its occurrence is
 * claimable again: `lastDueAt` is the last claimed occurrence once it is cancelled.
 */
export type TaskRunCancelled = {
  type: 'TaskRunCancelled';
  data: { taskId: number; runId: string; cancelledAt: number; lastDueAt: number | null };
};
/**
 * The run claimed its occurrence: it has started (counted in `runs`; `last_run` is its start). A prepared
 * run starts with its job already published: `jobId` is set.
 */
export type TaskRunStarted = {
  type: 'TaskRunStarted';
  data: {
    taskId: number;
    runId: string;
    dueAt: number;
    startedAt: number;
    jobId?: string;
    fileName?: string;
    reservationId?: string;
    /** Set on a run its owner asked for: it is no occurrence of the schedule (`dueAt` is when it was asked). */
    trigger?: 'manual';
  };
};
/** The run was admitted (quota reserved) and its render job handed to the renderers. */
export type TaskRunDispatched = {
  type: 'TaskRunDispatched';
  data: { taskId: number; runId: string; jobId: string; fileName: string; reservationId?: string; dispatchedAt: number };
};
export type TaskRunFinished = {
  type: 'TaskRunFinished';
  data: { taskId: number; runId: string; outcome: RunOutcome; finishedAt: number; file?: string; error?: RunError };
};

/**
 * Where a monitor's announcements go (the task query's webhook, the monitor's notify channels), decided with
 * the event that announces (a change, a failing episode, its recovery).
 */
export interface ChangeAnnouncement {
  accountId: string;
  /** Absent: no webhook, only notify channels. */
  webhookUrl?: string;
  webhookSigned: boolean;
  filesBaseUrl: string;
  notify?: NotifyChannel[];
  taskName?: string;
}
/**
 * A monitoring task's run compared with the last successful one: the first is the baseline. A change is
 * announced once, from this event (relayed when `announce` is set).
 */
export type TaskRunCompared = {
  type: 'TaskRunCompared';
  data: { taskId: number; runId: string; change: RunChange; comparedAt: number; announce?: ChangeAnnouncement };
};
/** A suspected change is rendered once more before it counts: the confirming render's job went out. */
export type TaskRunConfirming = {
  type: 'TaskRunConfirming';
  data: { taskId: number; runId: string; jobId: string; fileName: string; reservationId?: string; score: number; confirmingAt: number };
};

/**
 * A monitoring task failed `failures` runs in a row (alert_after_failures): a failing episode starts,
 * announced once (`episodeId`: the run that tripped it).
 */
export type TaskFailing = {
  type: 'TaskFailing';
  data: { taskId: number; runId: string; episodeId: string; failures: number; reason: string; failingAt: number; announce?: ChangeAnnouncement };
};
/** The failing episode `episodeId` ended: run `runId` succeeded. */
export type TaskRecovered = {
  type: 'TaskRecovered';
  data: { taskId: number; runId: string; episodeId: string; recoveredAt: number; announce?: ChangeAnnouncement };
};

export type TaskEvent =
  | TaskFailing
  | TaskRecovered
  | TaskRunCompared
  | TaskRunConfirming
  | TaskCreated
  | TaskUpdated
  | TaskEnabled
  | TaskDisabled
  | TaskDeleted
  | TaskRunPrepared
  | TaskRunCancelled
  | TaskRunStarted
  | TaskRunDispatched
  | TaskRunFinished;

export const TASK_EVENT_TYPES: ReadonlySet<string> = new Set<TaskEvent['type']>([
  'TaskCreated',
  'TaskUpdated',
  'TaskEnabled',
  'TaskDisabled',
  'TaskDeleted',
  'TaskRunPrepared',
  'TaskRunCancelled',
  'TaskRunStarted',
  'TaskRunDispatched',
  'TaskRunFinished',
  'TaskRunCompared',
  'TaskRunConfirming',
  'TaskFailing',
  'TaskRecovered',
]);

// ---- Commands -----------------------------------------------------------------------------------------

interface CommandMetadata {
  now: number;
}

export type CreateTask = {
  type: 'CreateTask';
  data: { taskId: number; accountId: string; definition: TaskDefinition; enabled: boolean; filesBaseUrl?: string };
  metadata: CommandMetadata;
};
/** `definition` is the whole definition after the patch (validated); only the fields that differ are recorded. */
export type UpdateTask = {
  type: 'UpdateTask';
  data: { taskId: number; accountId: string; definition?: TaskDefinition; enabled?: boolean };
  metadata: CommandMetadata;
};
export type DeleteTask = { type: 'DeleteTask'; data: { taskId: number; accountId: string }; metadata: CommandMetadata };
export type StartRun = { type: 'StartRun'; data: { runId: string; dueAt: number }; metadata: CommandMetadata };
/** The owner asks for a run now, outside the schedule: admitted already, its job about to be published. */
export type RunNow = {
  type: 'RunNow';
  data: { accountId: string; taskId: number; runId: string; jobId: string; fileName: string; reservationId?: string };
  metadata: CommandMetadata;
};
/**
 * `definition`: the one the run's job was built from; a task changed since (in a field its job is built
 * from) is not prepared from it.
 */
export type PrepareRun = {
  type: 'PrepareRun';
  data: { runId: string; dueAt: number; jobId: string; fileName: string; reservationId?: string; definition?: TaskDefinition };
  metadata: CommandMetadata;
};
/** The prepared run's job was published at its due instant: it has started. */
export type StartPreparedRun = { type: 'StartPreparedRun'; data: { runId: string }; metadata: CommandMetadata };
export type CancelPreparedRun = { type: 'CancelPreparedRun'; data: { runId: string }; metadata: CommandMetadata };
export type DispatchRun = {
  type: 'DispatchRun';
  data: { runId: string; jobId: string; fileName: string; reservationId?: string };
  metadata: CommandMetadata;
};
export type FinishRun = {
  type: 'FinishRun';
  /**
   * `announce`: where a failing episode this run starts is announced (monitoring tasks). `jobId`: the job
   * whose outcome this is; a prepared run whose job it is started, though its start was never recorded.
   */
  data: { runId: string; outcome: RunOutcome; file?: string; error?: RunError; announce?: ChangeAnnouncement; jobId?: string };
  metadata: CommandMetadata;
};

/** Records a run's comparison (idempotent: a run is compared once). */
export type CompareRun = {
  type: 'CompareRun';
  data: { runId: string; change: RunChange; announce?: ChangeAnnouncement };
  metadata: CommandMetadata;
};
export type ConfirmRun = {
  type: 'ConfirmRun';
  data: { runId: string; jobId: string; fileName: string; reservationId?: string; score: number };
  metadata: CommandMetadata;
};

export type TaskCommand =
  | CompareRun
  | ConfirmRun
  | CreateTask
  | UpdateTask
  | DeleteTask
  | StartRun
  | RunNow
  | PrepareRun
  | StartPreparedRun
  | CancelPreparedRun
  | DispatchRun
  | FinishRun;

// ---- State --------------------------------------------------------------------------------------------

/** A run that started and has not finished yet. */
export interface OpenRun {
  dueAt: number;
  startedAt: number;
  jobId?: string;
  /** Name the result file gets in the render-results object store. */
  fileName?: string;
  reservationId?: string;
  dispatchedAt?: number;
}

/** A run prepared ahead of its due instant, not started yet. */
export interface PreparedRun {
  dueAt: number;
  jobId: string;
  fileName: string;
  reservationId?: string;
  preparedAt: number;
  /** The last claimed occurrence before this one: claimable again if the run is cancelled. */
  previousDueAt: number | null;
  /**
   * Its job no longer stands as it was built: the task changed a field the job is built from, or was
   * disabled before the due instant. Abandoned by its holder, it is cancelled, never published again.
   */
  outdated?: true;
}

export interface ActiveTask {
  status: 'Active';
  taskId: number;
  accountId: string;
  definition: TaskDefinition;
  enabled: boolean;
  createdAt: number;
  /** Where the edge that created the task serves result files (for the webhooks of its runs). */
  filesBaseUrl?: string;
  /** Occurrences at or before this instant are never run (creation, re-enabling, a schedule change). */
  scheduleSince: number;
  /** The latest occurrence claimed by a run: a later claim must be for a later occurrence. */
  lastDueAt: number | null;
  runs: number;
  lastRunAt: number | null;
  openRuns: Record<string, OpenRun>;
  preparedRuns: Record<string, PreparedRun>;
  /** Monitoring: the compared result of the last successful run (what the next run is compared with). */
  baseline?: { runId: string; file: string } | null;
  /** Monitoring: runs finished but not compared yet, by run id (their result file). */
  uncompared?: Record<string, { file: string; finishedAt: number }>;
  /** Monitoring: confirming renders in flight, by job id. */
  confirming?: Record<string, { runId: string; startedAt: number; fileName?: string; reservationId?: string }>;
  /** Monitoring: failed runs in a row (render failed, an empty page, a failed comparison). */
  failures?: number;
  /** Monitoring: the failing episode announced, until a run succeeds. */
  failing?: { episodeId: string; since: number } | null;
}

/** A deleted task keeps its unfinished runs, so their quota reservations can still be settled. */
export interface DeletedTask {
  status: 'Deleted';
  taskId: number;
  accountId: string;
  openRuns: Record<string, OpenRun>;
}

export type Task = { status: 'Absent' } | ActiveTask | DeletedTask;
