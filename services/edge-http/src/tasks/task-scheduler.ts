import type { RunChangeResource, TaskMonitorResource, TaskResource, TaskRunResource } from '@app/task-resources';

/** The writable fields of a task, as sent. */
export interface TaskFieldsInput {
  name?: string;
  api?: string;
  query?: string;
  frequency?: string;
  crontab?: string;
  timezone?: string;
  enabled?: boolean;
  /** null: stop monitoring. */
  monitor?: TaskMonitorResource | null;
  keep_session?: boolean;
}

/** The scheduler, as the task routes need it; every call is scoped to the account (else task_not_found). */
export interface TaskScheduler {
  create(accountId: string, fields: TaskFieldsInput, opts: { filesBaseUrl: string }): Promise<TaskResource>;
  list(accountId: string): Promise<TaskResource[]>;
  get(accountId: string, id: number): Promise<TaskResource>;
  update(accountId: string, id: number, fields: TaskFieldsInput): Promise<TaskResource>;
  remove(accountId: string, id: number): Promise<void>;
  runs(accountId: string, id: number): Promise<TaskRunResource[]>;
  /** One run now, outside the schedule: started (its job out) when this answers, or the refusal thrown. */
  run(accountId: string, id: number): Promise<TaskRunResource>;
  /** The runs that changed, newest first. */
  changes(accountId: string, id: number): Promise<TaskRunResource[]>;
  /** Two kept runs compared (run_not_found naming from or to for a run that is not kept). */
  compare(accountId: string, id: number, runs: { from: string; to: string }): Promise<RunChangeResource>;
}
