import { ValidationError, hasCode, isAppError } from '@app/errors';
import { checkRenderTargets } from '@app/net-guard';
import { decide, taskNotFound } from '../domain/task/task.decider.js';
import type { TaskApi, TaskDefinition } from '../domain/task/task.js';
import type { TaskView, TaskViews } from '../projections/task-views/task-views.js';
import type { Clock, TargetGuard, TaskIds, TaskSessions, TaskStreams } from './ports.js';
import { definitionForCreate, definitionForUpdate, type TaskFields } from './task-input.js';
import { checkTaskQuery } from './task-query.js';

/**
 * A task whose page, proxy or webhook the SSRF policy refuses could never run: a 400 at creation, from the
 * very check the API call makes (checkRenderTargets). A name that does not resolve today may resolve by
 * the time the task runs, so it is accepted (the run records it).
 */
async function checkTarget(guard: TargetGuard, api: TaskApi, query: string): Promise<void> {
  const { params } = checkTaskQuery(api, query);
  const ignoreUnresolved = (err: unknown) => {
    if (!(isAppError(err) && hasCode(err, 'name_not_resolved'))) throw err;
  };
  if (params) await checkRenderTargets(params, (url, parameter) => guard.check(url, parameter).catch(ignoreUnresolved), 'query.');
  if (params?.webhook_url) await guard.checkWebhook(params.webhook_url, 'query.webhook_url').catch(ignoreUnresolved);
}

/**
 * A monitor's notify channels: an email needs the server's SMTP server (SMTP_URL), a chat service's URL
 * passes the webhook policy as the task's webhook_url does (checked again at every delivery).
 */
async function checkNotify(guard: TargetGuard, definition: TaskDefinition, emailNotifications: boolean): Promise<void> {
  const notify = definition.monitor?.notify ?? [];
  const problems = notify.flatMap((n, i) =>
    n.type === 'email' && !emailNotifications
      ? [{ parameter: `monitor.notify[${i}]`, message: `monitor.notify[${i}] is an email, and this server has no SMTP server configured (SMTP_URL)` }]
      : [],
  );
  if (problems.length > 0) throw new ValidationError(problems);
  const ignoreUnresolved = (err: unknown) => {
    if (!(isAppError(err) && hasCode(err, 'name_not_resolved'))) throw err;
  };
  for (const [i, n] of notify.entries()) {
    if (n.type !== 'email') await guard.checkWebhook(n.url, `monitor.notify[${i}].url`).catch(ignoreUnresolved);
  }
}

/** Create, update and delete: each decided over the task's stream, answered from the caught-up projection. */
export function taskCommands(deps: {
  streams: TaskStreams;
  ids: TaskIds;
  views: TaskViews;
  clock: Clock;
  guard: TargetGuard;
  emailNotifications?: boolean;
  /** Kept page sessions: forgotten with the task, or when it stops keeping one. */
  sessions?: TaskSessions;
}) {
  const { streams, ids, views, clock, guard } = deps;
  const emailNotifications = deps.emailNotifications ?? false;

  const viewAfterWrite = async (accountId: string, taskId: number): Promise<TaskView> => {
    await views.catchUp();
    const view = views.get(accountId, taskId);
    if (!view) throw taskNotFound(taskId);
    return view;
  };

  return {
    async create(accountId: string, fields: TaskFields, opts: { filesBaseUrl?: string | undefined } = {}): Promise<TaskView> {
      const now = clock.now().getTime();
      const { definition, enabled } = definitionForCreate(fields, now);
      await checkTarget(guard, definition.api, definition.query);
      await checkNotify(guard, definition, emailNotifications);
      const taskId = await ids.next();
      await streams.change(taskId, (state) =>
        decide(
          {
            type: 'CreateTask',
            data: { taskId, accountId, definition, enabled, ...(opts.filesBaseUrl ? { filesBaseUrl: opts.filesBaseUrl } : {}) },
            metadata: { now },
          },
          state,
        ),
      );
      return viewAfterWrite(accountId, taskId);
    },

    async update(accountId: string, taskId: number, fields: TaskFields): Promise<TaskView> {
      const { state } = await streams.load(taskId);
      if (state.status !== 'Active' || state.accountId !== accountId) throw taskNotFound(taskId);
      if (fields.api !== undefined || fields.query !== undefined || fields.monitor !== undefined) {
        const checked = definitionForUpdate(state, fields);
        await checkTarget(guard, checked.definition.api, checked.definition.query);
        if (fields.monitor) await checkNotify(guard, checked.definition, emailNotifications);
      }
      await streams.change(taskId, (current) => {
        // Validated again on the state the append is decided on (it may have moved since the check above).
        if (current.status !== 'Active' || current.accountId !== accountId) throw taskNotFound(taskId);
        const { definition, enabled } = definitionForUpdate(current, fields);
        return decide(
          { type: 'UpdateTask', data: { taskId, accountId, definition, enabled }, metadata: { now: clock.now().getTime() } },
          current,
        );
      });
      if (fields.keepSession === false) await deps.sessions?.forget(accountId, taskId);
      return viewAfterWrite(accountId, taskId);
    },

    async remove(accountId: string, taskId: number): Promise<void> {
      await streams.change(taskId, (state) =>
        decide({ type: 'DeleteTask', data: { taskId, accountId }, metadata: { now: clock.now().getTime() } }, state),
      );
      await views.catchUp();
      await deps.sessions?.forget(accountId, taskId);
    },
  };
}

export type TaskCommands = ReturnType<typeof taskCommands>;
