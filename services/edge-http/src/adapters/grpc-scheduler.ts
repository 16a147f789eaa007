import { callUnary, grpcClient, peerReady } from '@app/rpc';
import { SchedulerServiceClient, type Task, type TaskMonitor, type TaskRun } from '@app/proto/scheduler';
import type { TaskMonitorResource, TaskResource, TaskRunResource, TaskScheduler } from '../tasks/index.js';
import { grpcTaskHistory } from './grpc-task-history.js';

const missing = () => new Error('the scheduler answered without a task');

export const toTaskResource = (t: Task | undefined): TaskResource => {
  if (!t) throw missing();
  return {
    id: t.id,
    name: t.name,
    api: t.api,
    query: t.query,
    frequency: t.frequency,
    crontab: t.crontab,
    timezone: t.timezone,
    enabled: t.enabled,
    created: t.created,
    last_run: t.last_run ?? null,
    runs: t.runs,
    keep_session: t.keep_session,
    ...(t.monitor ? { monitor: toMonitorResource(t.monitor) } : {}),
  };
};

const toMonitorResource = (m: TaskMonitor): TaskMonitorResource => ({
  mode: m.mode,
  threshold: m.threshold,
  ...(m.selector !== undefined ? { selector: m.selector } : {}),
  ignore_selectors: m.ignore_selectors,
  ignore_text: m.ignore_text,
  confirm: m.confirm ?? true,
  fail_on_status: m.fail_on_status,
  fail_if_content_contains: m.fail_if_content_contains,
  fail_if_content_missing: m.fail_if_content_missing,
  ...(m.alert_after_failures !== undefined ? { alert_after_failures: m.alert_after_failures } : {}),
  notify: m.notify.map((n) => (n.type === 'email' ? { type: n.type, to: n.to } : { type: n.type, url: n.url })),
  ...(m.trigger !== undefined ? { trigger: m.trigger } : {}),
  keywords: m.keywords,
  ...(m.keep !== undefined ? { keep: m.keep } : {}),
});

const toMonitorMessage = (m: TaskMonitorResource): TaskMonitor => ({
  mode: m.mode,
  threshold: m.threshold,
  selector: m.selector,
  ignore_selectors: m.ignore_selectors ?? [],
  ignore_text: m.ignore_text ?? [],
  confirm: m.confirm,
  fail_on_status: m.fail_on_status ?? [],
  fail_if_content_contains: m.fail_if_content_contains ?? [],
  fail_if_content_missing: m.fail_if_content_missing ?? [],
  alert_after_failures: m.alert_after_failures,
  notify: m.notify ?? [],
  trigger: m.trigger,
  keywords: m.keywords ?? [],
  keep: m.keep,
});

export const toTaskRunResource = (r: TaskRun): TaskRunResource => ({
  id: r.run_id,
  task_id: r.task_id,
  trigger: r.trigger || 'schedule',
  status: r.status,
  due: r.due,
  started: r.started,
  finished: r.finished ?? null,
  file: r.file ?? null,
  error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
  change: r.change
    ? {
        status: r.change.status,
        score: r.change.score,
        summary: r.change.summary,
        diff: r.change.diff ?? null,
        before: r.change.before ?? null,
        after: r.change.after ?? null,
        boxes: r.change.boxes,
        compared: r.change.compared,
      }
    : null,
});

/**
 * The scheduler's SchedulerService over gRPC, spread over its replicas (`addresses`, as every client takes
 * them); its errors come back as AppErrors (task_not_found → 404).
 */
export function grpcScheduler(addresses: string): TaskScheduler & { close(): void; ready(): Promise<void> } {
  const client = grpcClient(SchedulerServiceClient, addresses);
  const history = grpcTaskHistory(addresses);
  return {
    async create(accountId, fields, opts) {
      const res = await callUnary(client, client.createTask, {
        account_id: accountId,
        name: fields.name ?? '',
        api: fields.api ?? '',
        query: fields.query ?? '',
        frequency: fields.frequency ?? '',
        crontab: fields.crontab,
        timezone: fields.timezone,
        enabled: fields.enabled,
        files_base_url: opts.filesBaseUrl,
        monitor: fields.monitor ? toMonitorMessage(fields.monitor) : undefined,
        keep_session: fields.keep_session,
      });
      return toTaskResource(res.task);
    },
    async list(accountId) {
      const res = await callUnary(client, client.listTasks, { account_id: accountId });
      return res.tasks.map(toTaskResource);
    },
    async get(accountId, id) {
      return toTaskResource((await callUnary(client, client.getTask, { account_id: accountId, id })).task);
    },
    async update(accountId, id, fields) {
      const { monitor, ...rest } = fields;
      const request = { account_id: accountId, id, ...rest, monitor: monitor ? toMonitorMessage(monitor) : undefined, clear_monitor: monitor === null };
      return toTaskResource((await callUnary(client, client.updateTask, request)).task);
    },
    async remove(accountId, id) {
      await callUnary(client, client.deleteTask, { account_id: accountId, id });
    },
    async runs(accountId, id) {
      return (await callUnary(client, client.listTaskRuns, { account_id: accountId, id })).runs.map(toTaskRunResource);
    },
    async run(accountId, id) {
      const { run } = await callUnary(client, client.runTask, { account_id: accountId, id });
      if (!run) throw new Error('the scheduler answered without a run');
      return toTaskRunResource(run);
    },
    async changes(accountId, id) {
      return (await callUnary(client, client.listTaskChanges, { account_id: accountId, id })).runs.map(toTaskRunResource);
    },
    compare: history.compare,
    close: () => {
      client.close();
      history.close();
    },
    ready: () => peerReady(client),
  };
}
