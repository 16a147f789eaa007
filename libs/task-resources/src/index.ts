import type { RunChange, Task, TaskMonitor } from '@app/proto/scheduler';

/**
 * The scheduled tasks of the HTTP API as JSON (spec: Scheduled task), read by the edge that serves them
 * and by the dashboard page that shows them. Each is the scheduler's message (proto/scheduler/v1) where
 * the two agree; times are Unix seconds. Types only: nothing here runs, so a browser may import it.
 */

/** A message's optional fields as a resource shows them: always present, null when absent. */
type AbsentAsNull<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> | null };

/** Change monitoring of a task (the scheduler's TaskMonitor); its lists may be left out when sent. */
type MonitorLists = 'ignore_selectors' | 'ignore_text' | 'fail_on_status' | 'fail_if_content_contains' | 'fail_if_content_missing' | 'notify' | 'keywords';
export type TaskMonitorResource = Omit<TaskMonitor, MonitorLists> & Partial<Pick<TaskMonitor, MonitorLists>>;

/** A scheduled task as the API returns it. */
export type TaskResource = AbsentAsNull<Omit<Task, 'monitor'>, 'last_run'> & { monitor?: TaskMonitorResource | null };

/** A run's comparison with the last successful run; its files are object names at the scheduler, URLs in a response. */
export type RunChangeResource = AbsentAsNull<RunChange, 'diff' | 'before' | 'after'>;

/** One run of a task; `file` is the result's object name at the scheduler, a URL in a response. */
export interface TaskRunResource {
  id: string;
  task_id: number;
  /** schedule (an occurrence of the task's schedule) | manual (asked for with POST /v1/tasks/{id}/runs) */
  trigger: string;
  /** running | succeeded | failed */
  status: string;
  due: number;
  started: number;
  finished: number | null;
  file: string | null;
  error: { code: string; message: string } | null;
  change?: RunChangeResource | null;
}
