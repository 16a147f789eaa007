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
  keep_session: z
    .boolean({ error: 'keep_session must be true or false' })
    .describe("Keep the page's cookies and local storage (encrypted) from one successful run to the next, so steps that sign in can be skipped while the session lasts (default false).")
    .optional(),
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
        fail_on_status: z
          .union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))], { error: 'monitor.fail_on_status must be status codes or ranges ("400-599", [404, "500-599"]) or "none"' })
          .transform((v) => (Array.isArray(v) ? v.map(String) : String(v).split(',')).map((s) => s.trim()).filter((s) => s !== ''))
          .describe('A run whose page answers one of these statuses or ranges fails with its reason, is never compared and never a baseline (default "400-599"; "none": no status fails it).')
          .optional(),
        fail_if_content_contains: z.array(z.string({ error: 'monitor.fail_if_content_contains must hold strings' }), { error: 'monitor.fail_if_content_contains must be a list of strings' }).describe('A run whose page shows one of these strings (case-insensitive) fails (at most 20).').optional(),
        fail_if_content_missing: z.array(z.string({ error: 'monitor.fail_if_content_missing must hold strings' }), { error: 'monitor.fail_if_content_missing must be a list of strings' }).describe('A run whose page lacks one of these strings (case-insensitive) fails (at most 20).').optional(),
        alert_after_failures: z.number({ error: 'monitor.alert_after_failures must be a number' }).describe('After this many failed runs in a row task.failing is announced, and task.recovered on the next successful run (default 3; 0: never).').optional(),
        notify: z
          .array(
            z.strictObject(
              {
                type: text('monitor.notify[].type', 'slack, discord, teams (incoming webhook url) or email (to).'),
                url: text('monitor.notify[].url', "The chat service's incoming webhook URL (slack, discord, teams).").optional(),
                to: text('monitor.notify[].to', 'The email address (email). A server without SMTP_URL refuses an email channel: 400 naming monitor.notify[i].').optional(),
              },
              { error: 'monitor.notify must hold objects {type, url} or {type: "email", to}' },
            ),
            { error: 'monitor.notify must be a list of channels' },
          )
          .describe('Where changes, task.failing and task.recovered are also sent (at most 10).')
          .optional(),
        trigger: text('monitor.trigger', 'text mode: which changed lines count: any (default), added or removed.').optional(),
        keywords: z.array(z.string({ error: 'monitor.keywords must hold strings' }), { error: 'monitor.keywords must be a list of strings' }).describe('text mode: a change counts only when one of these appears or disappears (at most 20).').optional(),
        keep: z.number({ error: 'monitor.keep must be a number' }).describe('Runs whose compared results are kept for GET /v1/tasks/{id}/compare (default 50, at most 1000).').optional(),
      },
      { error: 'monitor must be an object with mode and optional threshold, selector, ignore_selectors, ignore_text, confirm, fail_on_status, fail_if_content_contains, fail_if_content_missing, alert_after_failures, notify, trigger, keywords, keep' },
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
