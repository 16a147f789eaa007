import { ValidationError, type ParameterProblem } from '@app/errors';
import { RenderParams } from '@app/proto/render';
import { CALLER_PARAMETERS, FORMAT_BY_OPERATION, PARAMETERS, canonicalFormat, type Operation } from './parameters.js';
import { crossParameterProblems } from './rules.js';
import { placeName } from './steps.js';

/** Parameters that travel with a request but are not render parameters. */
const TRANSPORT_PARAMETERS: ReadonlySet<string> = new Set(CALLER_PARAMETERS);

export interface ValidatedRender {
  operation: Operation;
  params: RenderParams;
}

/** Without a device the viewport is DEFAULT_VIEWPORT; with one, the device's (explicit viewport_* still win). */
const DEVICE_SIZED: ReadonlySet<string> = new Set(['viewport_width', 'viewport_height']);

/**
 * The value each parameter of `operation` takes when it is absent (PARAMETERS and FORMAT_BY_OPERATION
 * declare them; the API reference shows the same values).
 */
export function parameterDefaults(operation: Operation, opts: { device?: boolean } = {}): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(PARAMETERS)) {
    if (def.default === undefined || !def.operations.includes(operation)) continue;
    if (opts.device && DEVICE_SIZED.has(name)) continue;
    defaults[name] = def.default;
  }
  const format = FORMAT_BY_OPERATION[operation];
  if (format) defaults.format = format.default;
  return defaults;
}

/**
 * Validates a render request's parameters (JSON body, GET query or task query) for one operation.
 * Every problem is reported in one ValidationError; defaults are applied; `jpg` becomes `jpeg`.
 */
export function validateRenderParams(operation: Operation, input: Record<string, unknown>): ValidatedRender {
  const problems: ParameterProblem[] = [];
  const out: Record<string, unknown> = {};

  for (const [name, raw] of Object.entries(input)) {
    if (TRANSPORT_PARAMETERS.has(name) || raw === undefined) continue;
    const def = Object.hasOwn(PARAMETERS, name) ? PARAMETERS[name] : undefined;
    if (!def) {
      problems.push({ parameter: name, message: `${name} is not a known parameter` });
      continue;
    }
    if (!def.operations.includes(operation)) {
      problems.push({ parameter: name, message: `${name} is not a parameter of ${operation}` });
      continue;
    }
    const schema = name === 'format' ? FORMAT_BY_OPERATION[operation]?.schema : def.schema;
    if (!schema) {
      problems.push({ parameter: name, message: `${name} is not a parameter of ${operation}` });
      continue;
    }
    const parsed = schema.safeParse(raw);
    // A value that parses to undefined (0 for a size or timeout) means "not set": the default applies.
    if (parsed.success) {
      if (parsed.data !== undefined) out[name] = parsed.data;
    }
    else if (def.namesPlaces) {
      // A structured parameter (steps) names each problem's place: steps[2].selector.
      for (const issue of parsed.error.issues) problems.push({ parameter: placeName(name, issue.path), message: `${placeName(name, issue.path)} ${issue.message}` });
    } else problems.push({ parameter: name, message: `${name} ${parsed.error.issues[0]?.message ?? 'is invalid'}` });
  }

  const hasUrl = input.url !== undefined && input.url !== '';
  const hasHtml = input.html !== undefined && input.html !== '';
  if (operation === 'scrape') {
    if (!hasUrl) problems.push({ parameter: 'url', message: 'url is required' });
  } else if (hasUrl === hasHtml) {
    problems.push({
      parameter: 'url',
      message: hasUrl ? 'give either url or html, not both' : 'one of url or html is required',
    });
  }
  const named = new Set(problems.map((p) => p.parameter));
  problems.push(...crossParameterProblems(operation, out).filter((p) => !named.has(p.parameter)));

  if (problems.length > 0) throw new ValidationError(problems);

  const defaults = parameterDefaults(operation, { device: out.viewport_device !== undefined });
  const params = RenderParams.fromPartial({ ...defaults, ...out });
  if (params.format !== undefined) params.format = canonicalFormat(params.format);
  if (params.block_ressources.length > 0) params.block_ressources = [...new Set(params.block_ressources)];
  if (params.wait_until.length > 0) params.wait_until = [...new Set(params.wait_until)];
  return { operation, params };
}
