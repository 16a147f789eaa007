/** The edge's scheduled tasks: the scheduler port, the task resources and the task body's checks. Its only face. */
export type { TaskMonitorResource, TaskResource, TaskRunResource, RunChangeResource } from '@app/task-resources';
export type { TaskFieldsInput, TaskScheduler } from './task-scheduler.js';
export { TASK_FIELDS, TASK_REQUIRED_FIELDS, taskFieldsOf, taskIdOf, withFileUrls } from './task-fields.js';
export { compareRunsOf, withChangeFileUrls } from './compare-runs.js';
export { taskRoutes } from './tasks.routes.js';
