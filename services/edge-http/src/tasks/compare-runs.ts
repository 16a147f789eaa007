import { ValidationError, type ParameterProblem } from '@app/errors';
import type { RunChangeResource } from '@app/task-resources';

/** A run id as the runs list names them: `<task>-<unix s>`, or `<task>-now-<unix ms>-<8 characters>` (run now). */
const RUN_ID = /^\d{1,15}-(\d{1,15}|now-\d{1,15}-[A-Za-z0-9]{1,8})$/;

/** `?from=RUN&to=RUN` of GET /v1/tasks/{id}/compare: two run ids, else a 400 naming each bad one. */
export function compareRunsOf(query: unknown): { from: string; to: string } {
  const q = (query ?? {}) as Record<string, unknown>;
  const problems: ParameterProblem[] = [];
  const runId = (parameter: 'from' | 'to'): string => {
    const value = q[parameter];
    if (value === undefined || value === '') problems.push({ parameter, message: `${parameter} is required: a run id (as GET /v1/tasks/{id}/runs lists them)` });
    else if (typeof value !== 'string' || !RUN_ID.test(value)) problems.push({ parameter, message: `${parameter} must be one run id (as GET /v1/tasks/{id}/runs lists them)` });
    return typeof value === 'string' ? value : '';
  };
  const runs = { from: runId('from'), to: runId('to') };
  if (problems.length > 0) throw new ValidationError(problems);
  return runs;
}

/** A comparison with its files (before, after, diff) as URLs. */
export function withChangeFileUrls(change: RunChangeResource, base: string): RunChangeResource {
  const url = (name: string | null) => (name ? `${base}${name}` : null);
  return { ...change, diff: url(change.diff), before: url(change.before), after: url(change.after) };
}
