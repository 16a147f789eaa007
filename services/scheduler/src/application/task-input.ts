import { ValidationError, type ParameterProblem } from '@app/errors';
import type { ActiveTask, Frequency, TaskApi, TaskDefinition } from '../domain/task/task.js';
import { FREQUENCIES, TASK_APIS } from '../domain/task/task.js';
import { parseCrontab } from '../schedule/crontab.js';
import { deriveCrontab } from '../schedule/frequency.js';
import { isIanaTimeZone } from '@app/render-params';
import { checkTaskQuery } from './task-query.js';
import { checkMonitor, monitorFieldsOf, type MonitorInput } from './monitor-input.js';

export const MAX_NAME_LENGTH = 100;
export const DEFAULT_TIMEZONE = 'Etc/UTC';

/** The writable fields as a caller sends them (create: some required; update: any subset). */
export interface TaskFields {
  name?: string | undefined;
  api?: string | undefined;
  query?: string | undefined;
  frequency?: string | undefined;
  crontab?: string | undefined;
  timezone?: string | undefined;
  enabled?: boolean | undefined;
  /** null: the task stops monitoring. */
  monitor?: MonitorInput | null | undefined;
  /** Keep the page's session between runs. */
  keepSession?: boolean | undefined;
}

const isApi = (v: string): v is TaskApi => (TASK_APIS as readonly string[]).includes(v);
const isFrequency = (v: string): v is Frequency => (FREQUENCIES as readonly string[]).includes(v);

/** Control characters (NUL, CR, LF, tab, DEL, C1) and the Unicode line and paragraph separators. */
const CONTROL_OR_LINE_BREAK = /[\p{Cc}\u2028\u2029]/u;

function checkName(name: string, problems: ParameterProblem[]): void {
  const length = [...name].length;
  if (length === 0) problems.push({ parameter: 'name', message: 'name must not be empty' });
  else if (CONTROL_OR_LINE_BREAK.test(name)) {
    problems.push({ parameter: 'name', message: 'name must not contain control characters or line breaks' });
  } else if (length > MAX_NAME_LENGTH) {
    problems.push({ parameter: 'name', message: `name must be at most ${MAX_NAME_LENGTH} characters (got ${length})` });
  }
}

function checkApi(api: string, problems: ParameterProblem[]): TaskApi | undefined {
  if (isApi(api)) return api;
  problems.push({ parameter: 'api', message: `api must be one of ${TASK_APIS.join(', ')}` });
  return undefined;
}

function checkFrequency(frequency: string, problems: ParameterProblem[]): Frequency | undefined {
  if (isFrequency(frequency)) return frequency;
  problems.push({ parameter: 'frequency', message: `frequency must be one of ${FREQUENCIES.join(', ')}` });
  return undefined;
}

function checkTimezone(timezone: string, problems: ParameterProblem[]): string | undefined {
  if (isIanaTimeZone(timezone)) return timezone;
  problems.push({ parameter: 'timezone', message: 'timezone must be a time zone name of the IANA database, e.g. Europe/Berlin' });
  return undefined;
}

function checkCustomCrontab(crontab: string, problems: ParameterProblem[]): string | undefined {
  const parsed = parseCrontab(crontab);
  if ('crontab' in parsed) return parsed.crontab;
  problems.push({ parameter: 'crontab', message: parsed.problem });
  return undefined;
}

const CRONTAB_ONLY_WITH_CUSTOM = 'crontab is only accepted with frequency custom';
const CRONTAB_REQUIRED = 'crontab is required when frequency is custom';
const present = (v: string | undefined): v is string => v !== undefined && v !== null;

/** The query's problems; its output format when it is valid. */
function checkQuery(api: TaskApi | undefined, query: string, problems: ParameterProblem[]): string | undefined {
  if (!api) return undefined; // the api is wrong already: the query cannot be judged
  const checked = checkTaskQuery(api, query);
  problems.push(...checked.problems);
  const format = checked.params?.format;
  return typeof format === 'string' ? format : undefined;
}

/**
 * A new task's definition from the caller's fields, with every problem in one ValidationError. The crontab
 * of a fixed frequency is derived from `now` (the creation time) in the task's time zone.
 */
export function definitionForCreate(fields: TaskFields, now: number): { definition: TaskDefinition; enabled: boolean } {
  const problems: ParameterProblem[] = [];
  const required = (name: keyof TaskFields, value: string | undefined): value is string => {
    if (present(value) && value !== '') return true;
    problems.push({ parameter: name, message: `${name} is required` });
    return false;
  };
  if (required('name', fields.name)) checkName(fields.name, problems);
  const api = required('api', fields.api) ? checkApi(fields.api, problems) : undefined;
  const format = required('query', fields.query) ? checkQuery(api, fields.query, problems) : undefined;
  const monitor = fields.monitor ? checkMonitor(api, fields.monitor, format, problems) : undefined;
  const frequency = required('frequency', fields.frequency) ? checkFrequency(fields.frequency, problems) : undefined;
  const timezone = checkTimezone(fields.timezone ?? DEFAULT_TIMEZONE, problems);
  const hasCrontab = present(fields.crontab) && fields.crontab !== '';

  let crontab: string | undefined;
  if (frequency === 'custom') {
    if (hasCrontab) crontab = checkCustomCrontab(fields.crontab!, problems);
    else problems.push({ parameter: 'crontab', message: CRONTAB_REQUIRED });
  } else if (frequency && hasCrontab) {
    problems.push({ parameter: 'crontab', message: CRONTAB_ONLY_WITH_CUSTOM });
  } else if (frequency && timezone) {
    crontab = deriveCrontab(frequency, now, timezone);
  }

  if (problems.length > 0 || !api || !frequency || !timezone || !crontab) throw new ValidationError(problems);
  return {
    definition: { name: fields.name!, api, query: fields.query!, frequency, crontab, timezone, ...(monitor ? { monitor } : {}), ...(fields.keepSession ? { keepSession: true } : {}) },
    enabled: fields.enabled ?? true,
  };
}

/**
 * The definition after a partial update of `task` (PATCH: any subset of the writable fields), checked as a
 * whole: a new api re-validates the query, a fixed frequency re-derives its crontab from the creation time
 * in the (possibly new) time zone, a crontab needs frequency custom.
 */
export function definitionForUpdate(task: ActiveTask, fields: TaskFields): { definition: TaskDefinition; enabled?: boolean } {
  const problems: ParameterProblem[] = [];
  const current = task.definition;
  if (present(fields.name)) checkName(fields.name, problems);
  const api = present(fields.api) ? checkApi(fields.api, problems) : current.api;
  const query = fields.query ?? current.query;
  const queryChanged = present(fields.api) || present(fields.query);
  const format = queryChanged || fields.monitor ? checkQuery(api, query, problems) : undefined;
  // A new monitor is checked; the current one again when the api or query it watches changes.
  const monitorInput = fields.monitor === null ? undefined : fields.monitor ?? (queryChanged && current.monitor ? monitorFieldsOf(current.monitor) : undefined);
  const checkedMonitor = monitorInput ? checkMonitor(api, monitorInput, format, problems) : undefined;
  const monitor = fields.monitor === null ? null : (checkedMonitor ?? current.monitor ?? null);
  const frequency = present(fields.frequency) ? checkFrequency(fields.frequency, problems) : current.frequency;
  const timezone = present(fields.timezone) ? checkTimezone(fields.timezone, problems) : current.timezone;
  const hasCrontab = present(fields.crontab) && fields.crontab !== '';

  let crontab: string | undefined;
  if (frequency === 'custom') {
    if (hasCrontab) crontab = checkCustomCrontab(fields.crontab!, problems);
    else if (current.frequency === 'custom') crontab = current.crontab;
    else problems.push({ parameter: 'crontab', message: CRONTAB_REQUIRED });
  } else if (frequency && hasCrontab) {
    problems.push({ parameter: 'crontab', message: CRONTAB_ONLY_WITH_CUSTOM });
  } else if (frequency && timezone) {
    crontab = deriveCrontab(frequency, task.createdAt, timezone);
  }

  if (problems.length > 0 || !api || !frequency || !timezone || !crontab) throw new ValidationError(problems);
  return {
    definition: {
      name: fields.name ?? current.name,
      api,
      query,
      frequency,
      crontab,
      timezone,
      ...(monitor ? { monitor } : {}),
      ...((fields.keepSession ?? current.keepSession) ? { keepSession: true } : {}),
    },
    ...(fields.enabled !== undefined ? { enabled: fields.enabled } : {}),
  };
}
