import { AppError } from '@app/errors';
import type { Logger } from '@app/logging';
import { unaryHandler } from '@app/rpc';
import type {
  CreateTaskRequest,
  SchedulerServiceServer,
  Task as TaskMessage,
  TaskRun as TaskRunMessage,
  UpdateTaskRequest,
} from '@app/proto/scheduler';
import { monitorFieldsOf, type MonitorInput } from '../../application/monitor-input.js';
import type { TaskFields } from '../../application/task-input.js';
import { taskNotFound } from '../../domain/task/task.decider.js';
import type { RunStarter } from '../../application/start-run.js';
import type { TaskCommands } from '../../application/task-commands.js';
import type { RunView, TaskView, TaskViews } from '../../projections/task-views/task-views.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** The writable fields of a create or update request, with the monitor the caller sent (null: clear it). */
const taskFieldsOf = (req: CreateTaskRequest | UpdateTaskRequest, monitor: MonitorInput | null | undefined): TaskFields => ({
  name: req.name,
  api: req.api,
  query: req.query,
  frequency: req.frequency,
  crontab: req.crontab,
  timezone: req.timezone,
  enabled: req.enabled,
  monitor,
  keepSession: req.keep_session,
});

export const toTaskMessage = (t: TaskView): TaskMessage => ({
  id: t.id,
  name: t.name,
  api: t.api,
  query: t.query,
  frequency: t.frequency,
  crontab: t.crontab,
  timezone: t.timezone,
  enabled: t.enabled,
  created: seconds(t.created),
  last_run: t.lastRun === null ? undefined : seconds(t.lastRun),
  runs: t.runs,
  monitor: t.monitor ? monitorFieldsOf(t.monitor) : undefined,
  keep_session: t.keepSession ?? false,
});

export const toTaskRunMessage = (r: RunView): TaskRunMessage => ({
  run_id: r.runId,
  task_id: r.taskId,
  trigger: r.trigger,
  due: seconds(r.dueAt),
  started: seconds(r.startedAt),
  finished: r.finishedAt === null ? undefined : seconds(r.finishedAt),
  status: r.status,
  file: r.file ?? undefined,
  error_code: r.error?.code,
  error_message: r.error?.message,
  change: r.change
    ? {
        status: r.change.status,
        score: r.change.score,
        summary: r.change.summary,
        diff: r.change.diff,
        before: r.change.before,
        after: r.change.after,
        boxes: r.change.boxes,
        compared: seconds(r.change.comparedAt),
      }
    : undefined,
});

function accountOf(req: { account_id: string }): string {
  if (!req.account_id) {
    throw new AppError('invalid_parameter', 'account_id is required.', {
      details: [{ parameter: 'account_id', message: 'account_id is required' }],
    });
  }
  return req.account_id;
}

/** SchedulerService: every call is scoped to the account; another account's task is task_not_found. */
export function schedulerService(deps: {
  commands: TaskCommands;
  views: TaskViews;
  starter: Pick<RunStarter, 'onRequest'>;
  logger: Logger;
}): SchedulerServiceServer {
  const { commands, views, starter, logger } = deps;
  const h = <Req, Res>(fn: (req: Req) => Promise<Res>) => unaryHandler<Req, Res>(fn, logger);

  const ownedView = async (accountId: string, id: number) => {
    await views.catchUp();
    const view = views.get(accountId, id);
    if (!view) throw taskNotFound(id);
    return view;
  };

  /** The caller's task's runs as messages (`runs`: its run history; `changes`: the runs that found a change). */
  const ownedRuns = async (req: { account_id: string; id: number }, which: 'runs' | 'changes') => {
    const accountId = accountOf(req);
    await views.catchUp();
    const runs = views[which](accountId, req.id);
    if (!runs) throw taskNotFound(req.id);
    return { runs: runs.map(toTaskRunMessage) };
  };

  return {
    createTask: h(async (req) => {
      const view = await commands.create(accountOf(req), taskFieldsOf(req, req.monitor), { filesBaseUrl: req.files_base_url });
      return { task: toTaskMessage(view) };
    }),

    getTask: h(async (req) => ({ task: toTaskMessage(await ownedView(accountOf(req), req.id)) })),

    listTasks: h(async (req) => {
      const accountId = accountOf(req);
      await views.catchUp();
      return { tasks: views.list(accountId).map(toTaskMessage) };
    }),

    updateTask: h(async (req) => {
      const view = await commands.update(accountOf(req), req.id, taskFieldsOf(req, req.clear_monitor ? null : req.monitor));
      return { task: toTaskMessage(view) };
    }),

    deleteTask: h(async (req) => {
      await commands.remove(accountOf(req), req.id);
      return {};
    }),

    listTaskRuns: h((req) => ownedRuns(req, 'runs')),

    runTask: h(async (req) => {
      const accountId = accountOf(req);
      const runId = await starter.onRequest({ accountId, taskId: req.id });
      await views.catchUp();
      const run = views.runs(accountId, req.id)?.find((r) => r.runId === runId);
      if (!run) throw taskNotFound(req.id); // deleted in the meantime
      return { run: toTaskRunMessage(run) };
    }),

    listTaskChanges: h((req) => ownedRuns(req, 'changes')),
  };
}
