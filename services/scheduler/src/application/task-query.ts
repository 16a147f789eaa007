import { isAppError, type ParameterProblem } from '@app/errors';
import { CALLER_PARAMETERS, validateRenderParams, type RenderParams } from '@app/render-params';
import type { TaskApi } from '../domain/task/task.js';


/**
 * A task's query string as parameters. It may be URL-encoded or not (`url=https://a.test/x` and
 * `url=https%3A%2F%2Fa.test%2Fx` read the same), may start with `?`, and may even be encoded as a whole
 * (`url%3Dhttps%253A...%26format%3Dpng`). A repeated name becomes a list (`hide_selectors=a&hide_selectors=b`).
 */
export function parseTaskQuery(query: string): Record<string, string | string[]> {
  let text = query.trim();
  if (text.startsWith('?')) text = text.slice(1);
  if (!text.includes('=') && /%3d/i.test(text)) {
    try {
      text = decodeURIComponent(text);
    } catch {
      // Not valid percent-encoding: parsed as it is, and refused below for having no parameters.
    }
  }
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const seen = out[name];
    out[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return out;
}

export type TaskQueryCheck = { params: RenderParams; problems: [] } | { params: undefined; problems: ParameterProblem[] };

/**
 * Validates a task's query with the same rules as the API call it stands for (`validateRenderParams` of the
 * operation); problems name the parameter inside the query (`query.url`).
 */
export function checkTaskQuery(api: TaskApi, query: string): TaskQueryCheck {
  const input = parseTaskQuery(query);
  const problems: ParameterProblem[] = [];
  if (Object.keys(input).length === 0) {
    problems.push({ parameter: 'query', message: 'query must hold the parameters of the operation, e.g. url=https://example.com' });
  }
  for (const name of CALLER_PARAMETERS) {
    if (name in input) {
      problems.push({
        parameter: `query.${name}`,
        message: `${name} must not be part of a task query: a task runs with the identity of its account`,
      });
      delete input[name];
    }
  }
  if (problems.length > 0) return { params: undefined, problems };
  try {
    return { params: validateRenderParams(api, input).params, problems: [] };
  } catch (err) {
    if (!isAppError(err) || !err.details) throw err;
    return {
      params: undefined,
      problems: err.details.map((p) => ({ parameter: `query.${p.parameter}`, message: `${p.message} (in query)` })),
    };
  }
}

