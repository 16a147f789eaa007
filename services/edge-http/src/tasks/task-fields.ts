import { z } from 'zod';
import { AppError, ValidationError, type ParameterProblem } from '@app/errors';
import { CALLER_PARAMETERS, OPERATIONS } from '@app/render-params';
import type { TaskRunResource } from '@app/task-resources';
import type { TaskFieldsInput } from './task-scheduler.js';

const text = (name: string, description: string) => z.string({ error: `${name} must be a string` }).describe(description);

/**
 * The writable fields of a task as the edge checks them (their JSON types); the scheduler checks the
 * rules (lengths, enums, crontab, zone, query). The API reference describes the task body from these.
 */
export const TASK_FIELDS = {
  name: text('name', 'A name for the task, at most 100 characters.'),
  api: text('api', `The operation the task runs: ${OPERATIONS.join(', ')}.`),
  query: text('query', "The operation's parameters as a query string, without access_key (validated like the call itself)."),
  frequency: text('frequency', 'every_minute, every_hour, every_day, every_month, or custom (with crontab).'),
  // A null crontab is the same as none (a client clearing it while choosing a fixed frequency).
  crontab: text('crontab', 'Five-field cron expression (minute hour day-of-month month day-of-week); only with frequency custom.').nullable(),
  timezone: text('timezone', 'IANA time zone the schedule runs in.').default('Etc/UTC'),
  enabled: z.boolean({ error: 'enabled must be true or false' }).describe('Whether the task runs.').default(true),
  // null stops monitoring (PATCH).
  monitor: z
    .strictObject(
      {
        mode: text('monitor.mode', 'visual (screenshot tasks) or text (scrape tasks).'),
        threshold: z.number({ error: 'monitor.threshold must be a number' }).describe('visual: percent of pixels that differ (0-100, default 0.1); text: changed characters (default 1).').optional(),
        selector: text('monitor.selector', 'Compare only this element (CSS selector).').optional(),
        ignore_selectors: z.array(z.string({ error: 'monitor.ignore_selectors must hold strings' }), { error: 'monitor.ignore_selectors must be a list of CSS selectors' }).describe('Elements masked (visual) or removed (text) before comparing.').optional(),
        ignore_text: z.array(z.string({ error: 'monitor.ignore_text must hold strings' }), { error: 'monitor.ignore_text must be a list of regular expressions' }).describe('Regular expressions removed before a text comparison (at most 20).').optional(),
        confirm: z.boolean({ error: 'monitor.confirm must be true or false' }).describe('Render a suspected change once more before it counts (default true).').optional(),
      },
      { error: 'monitor must be an object with mode and optional threshold, selector, ignore_selectors, ignore_text, confirm' },
    )
    .describe('Change monitoring: each run is compared with the last successful one.')
    .nullable(),
} as const;
/** Needed to create a task. */
export const TASK_REQUIRED_FIELDS = ['name', 'api', 'query', 'frequency'] as const;

const READ_ONLY_FIELDS: ReadonlySet<string> = new Set(['id', 'created', 'last_run', 'runs']);
/** Travel with the request, not with the task. */
const TRANSPORT_FIELDS: ReadonlySet<string> = new Set(CALLER_PARAMETERS);

/**
 * The JSON body as task fields: only the writable fields, each of its JSON type (the scheduler checks the
 * rules: lengths, enums, crontab, zone, query). Every problem is reported at once.
 */
export function taskFieldsOf(body: unknown): TaskFieldsInput {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationError([{ parameter: 'body', message: 'the body must be a JSON object' }]);
  }
  const problems: ParameterProblem[] = [];
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (TRANSPORT_FIELDS.has(name)) continue;
    if (Object.hasOwn(TASK_FIELDS, name)) {
      const parsed = TASK_FIELDS[name as keyof typeof TASK_FIELDS].safeParse(value);
      if (!parsed.success) problems.push({ parameter: name, message: parsed.error.issues[0]?.message ?? `${name} is invalid` });
      else if (parsed.data !== null || name === 'monitor') fields[name] = parsed.data;
    } else if (READ_ONLY_FIELDS.has(name)) {
      problems.push({ parameter: name, message: `${name} is set by the service and cannot be written` });
    } else {
      problems.push({ parameter: name, message: `${name} is not a field of a task` });
    }
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return fields as TaskFieldsInput;
}

/** The task id of a request's path: a positive integer, else no such task. */
export function taskIdOf(request: { params: unknown }): number {
  const raw = (request.params as { id?: string }).id ?? '';
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw new AppError('task_not_found', `Task ${raw.slice(0, 40)} was not found.`);
  return Number(raw);
}

/** A run with its files (result, and the comparison's before, after and diff) as URLs. */
export function withFileUrls(run: TaskRunResource, base: string): TaskRunResource {
  const url = (name: string | null) => (name ? `${base}${name}` : null);
  const { change } = run;
  return {
    ...run,
    file: url(run.file),
    change: change ? { ...change, diff: url(change.diff), before: url(change.before), after: url(change.after) } : null,
  };
}
