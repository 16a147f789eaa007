import { z } from 'zod';
import { ERROR_CODES } from '@app/errors';

/**
 * The JSON bodies the API answers with, for the API reference. Objects are open (clients must ignore
 * fields they do not know), so fields added later keep old clients and this description valid.
 */

const seconds = (description: string) => z.number().int().describe(description);

export const ErrorBody = z
  .looseObject({
    statusCode: z.number().int().describe('The HTTP status.'),
    error: z.string().describe('The HTTP reason phrase.'),
    message: z.string().describe('What went wrong, naming the parameter and the rule broken.'),
    code: z.enum(Object.keys(ERROR_CODES) as [string, ...string[]]).describe('Stable machine-readable code (never renamed).'),
    details: z
      .array(
        z.looseObject({
          parameter: z.string(),
          message: z.string(),
          returned_status_code: z.number().int().optional().describe("host_returned_error: the status the page's main document answered."),
          matched_string: z.string().optional().describe('content_contains_specified_string, content_missing_specified_string: the string at fault.'),
        }),
      )
      .optional()
      .describe('Every bad parameter, for 400s about parameters; for a failure asked for by fail_on_status or fail_if_content_*, the parameter and what met it.'),
  })
  .meta({ id: 'Error', description: 'Every error answer has this body.' });

export const AsyncAccepted = z
  .looseObject({
    id: z.string().describe('Render id: follow it at GET /v1/renders/{id}.'),
    status: z.enum(['queued', 'succeeded']).describe('queued, or succeeded at once when the cache held the result.'),
    created: seconds('Unix seconds.'),
  })
  .meta({ id: 'AsyncAccepted', description: 'Answer to async=true.' });

export const RenderStatus = z
  .looseObject({
    id: z.string(),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    created: seconds('Unix seconds.'),
    finished: seconds('Unix seconds.').nullable(),
    file: z.string().nullable().describe('Unguessable URL of the result, fetchable without the key until expires.'),
    expires: seconds('Unix seconds after which file is gone.').nullable(),
    error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
    webhook: z
      .looseObject({
        status: z.enum(['pending', 'delivered', 'failed']),
        attempts: z.number().int(),
        last_attempt: seconds('Unix seconds.').nullable(),
        next_attempt: seconds('Unix seconds.').nullable(),
      })
      .optional()
      .describe('Delivery of the webhook, when webhook_url was given.'),
  })
  .meta({ id: 'RenderStatus' });

export const Usage = z
  .looseObject({
    hits: z.looseObject({
      quota: z.number().int().describe('Renders allowed this calendar month (UTC).'),
      used: z.number().int(),
      remaining: z.number().int(),
    }),
    concurrency: z
      .looseObject({ limit: z.number().int(), remaining: z.number().int(), reset: seconds('Unix seconds when the minute window resets.') })
      .describe('The per-minute request limit, as in the X-RateLimit-* headers.'),
    renders: z
      .looseObject({ limit: z.number().int(), in_flight: z.number().int() })
      .describe('Renders the plan allows in flight at once (429 concurrency_limited past it), and how many are.'),
  })
  .meta({ id: 'Usage' });

const DeviceViewport = z.looseObject({
  width: z.number().int(),
  height: z.number().int(),
  deviceScaleFactor: z.number(),
  isMobile: z.boolean(),
  hasTouch: z.boolean(),
  isLandscape: z.boolean(),
});

export const DeviceList = z
  .looseObject({
    devices: z.array(
      z.looseObject({
        id: z.string().describe("ScreenshotMAX's spelling of the device name (accepted as viewport_device)."),
        name: z.string(),
        userAgent: z.string(),
        viewport: DeviceViewport,
        viewport_device: z.string().describe('The viewport_device value.'),
        viewport_width: z.number().int(),
        viewport_height: z.number().int(),
        device_scale_factor: z.number(),
        viewport_mobile: z.boolean(),
        viewport_has_touch: z.boolean(),
        viewport_landscape: z.boolean(),
        user_agent: z.string(),
      }),
    ),
  })
  .meta({ id: 'DeviceList' });

export const Task = z
  .looseObject({
    id: z.number().int().positive(),
    name: z.string(),
    api: z.string(),
    query: z.string(),
    frequency: z.string(),
    crontab: z.string().describe('Always given: derived from the creation time for the fixed frequencies.'),
    timezone: z.string(),
    enabled: z.boolean(),
    created: seconds('Unix seconds.'),
    last_run: seconds('Unix seconds of the start of the latest run.').nullable(),
    runs: z.number().int().describe('Runs that started.'),
    keep_session: z.boolean().describe("Whether the page's cookies and local storage are kept (encrypted) from one successful run to the next."),
    monitor: z
      .looseObject({
        mode: z.enum(['visual', 'text']),
        threshold: z.number(),
        selector: z.string().optional(),
        ignore_selectors: z.array(z.string()),
        ignore_text: z.array(z.string()),
        confirm: z.boolean(),
      })
      .nullable()
      .optional()
      .describe('Change monitoring, with its defaults filled (null when the task does not monitor).'),
  })
  .meta({ id: 'Task' });

export const RunChange = z
  .looseObject({
    status: z.enum(['baseline', 'unchanged', 'changed', 'failed']).describe('failed: the comparison kept running out of time or memory; the baseline stays.'),
    score: z.number().describe('visual: percent of pixels that differ; text: changed characters.'),
    summary: z.string(),
    diff: z.string().nullable().describe('URL of the diff file: a PNG with the changed pixels marked (visual), a unified diff (text).'),
    before: z.string().nullable().describe('URL of the previous run\'s compared result.'),
    after: z.string().nullable().describe('URL of this run\'s compared result.'),
    boxes: z.array(z.looseObject({ x: z.number().int(), y: z.number().int(), width: z.number().int(), height: z.number().int() })).describe('Changed regions (visual), largest first.'),
    compared: seconds('Unix seconds of the comparison.'),
  })
  .meta({ id: 'RunChange' });

export const TaskList = z.looseObject({ tasks: z.array(Task) }).meta({ id: 'TaskList' });

export const TaskRun = z
  .looseObject({
    id: z.string().describe('<task id>-<unix seconds of the occurrence>; a run asked for now: <task id>-now-<unix ms>-<8 characters>, unique.'),
    task_id: z.number().int(),
    trigger: z.enum(['schedule', 'manual']).describe('manual: asked for with POST /v1/tasks/{id}/runs.'),
    status: z.enum(['running', 'succeeded', 'failed']),
    due: seconds('Unix seconds of the occurrence (a manual run: when it was asked for).'),
    started: seconds('Unix seconds.'),
    finished: seconds('Unix seconds.').nullable(),
    file: z.string().nullable().describe('URL of the result.'),
    error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
    change: RunChange.nullable().optional().describe('A monitoring task\'s comparison with the last successful run.'),
  })
  .meta({ id: 'TaskRun' });

export const TaskRuns = z.looseObject({ runs: z.array(TaskRun) }).meta({ id: 'TaskRuns' });

export const TaskChanges = z
  .looseObject({ changes: TaskRuns.shape.runs.describe('Runs whose comparison found a change, newest first.') })
  .meta({ id: 'TaskChanges' });

export const Health = z.looseObject({ status: z.string(), reason: z.string().optional() }).meta({ id: 'Health' });
export const Readiness = z
  .looseObject({ status: z.enum(['ready', 'not_ready']), checks: z.record(z.string(), z.string()) })
  .meta({ id: 'Readiness' });

export const Secret = z
  .looseObject({
    name: z.string(),
    created: seconds('Unix seconds.'),
    updated: seconds('Unix seconds of the latest value.'),
    replaced: z.boolean().optional().describe('On POST: true when a secret of that name was replaced.'),
  })
  .meta({ id: 'Secret', description: 'An account secret: its name and dates. Its value is never answered.' });

export const SecretList = z.looseObject({ secrets: z.array(Secret) }).meta({ id: 'SecretList' });
