import type { ActiveTask, ChangeAnnouncement } from '../domain/task/task.js';
import { checkTaskQuery } from './task-query.js';

/**
 * Where a monitoring task's announcements go: its query's webhook_url and its monitor's notify channels.
 * None without either, or for a task created where no file URL base was known.
 */
export function announcementOf(task: ActiveTask): ChangeAnnouncement | undefined {
  const monitor = task.definition.monitor;
  if (!monitor || !task.filesBaseUrl) return undefined;
  const { params } = checkTaskQuery(task.definition.api, task.definition.query);
  const url = params?.webhook_url;
  const notify = monitor.notify ?? [];
  if (!url && notify.length === 0) return undefined;
  return {
    accountId: task.accountId,
    ...(url ? { webhookUrl: url } : {}),
    webhookSigned: params?.webhook_signed !== false,
    filesBaseUrl: task.filesBaseUrl,
    ...(notify.length > 0 ? { notify } : {}),
    taskName: task.definition.name,
  };
}
