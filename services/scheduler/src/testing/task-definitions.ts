import type { TaskDefinition } from '../domain/task/task.js';

/** An every_minute screenshot task's definition, for the decider's tests. */
export const EVERY_MINUTE_TASK: TaskDefinition = {
  name: 'Home page',
  api: 'screenshot',
  query: 'url=https://example.com',
  frequency: 'every_minute',
  crontab: '* * * * *',
  timezone: 'Etc/UTC',
};
