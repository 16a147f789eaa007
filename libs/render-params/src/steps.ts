import { z } from 'zod';
import type { BrowserStep } from '@app/proto/render';

/** At most this many steps in one render. */
export const MAX_STEPS = 50;
/** A `wait` step waits at most this long (milliseconds). */
export const MAX_STEP_WAIT_MS = 10_000;
/** A `type` step's `text` is at most this many characters. */
export const MAX_STEP_TEXT = 10_000;
/** The name of an account secret: what `POST /v1/secrets` accepts and a `type` step's `secret` names. */
export const SECRET_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
export const SECRET_NAME_RULE = '1 to 64 letters, digits, dots, dashes or underscores';

export const STEP_ACTIONS = ['goto', 'click', 'type', 'press', 'select', 'check', 'hover', 'scroll_to', 'wait_for_selector', 'wait'] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

/** Keys a `press` step may name besides one printable character. */
export const STEP_KEYS = [
  'Enter', 'Tab', 'Escape', 'Backspace', 'Delete', 'Space', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight',
  'Home', 'End', 'PageUp', 'PageDown', 'F1', 'F2', 'F3', 'F4', 'F5', 'F6', 'F7', 'F8', 'F9', 'F10', 'F11', 'F12',
] as const;

type Field = 'selector' | 'url' | 'text' | 'secret' | 'key' | 'value' | 'ms' | 'optional';

/** The fields each action reads (besides `action`); `optional` is allowed where an element is looked for. */
const FIELDS: Readonly<Record<StepAction, readonly Field[]>> = {
  goto: ['url'],
  click: ['selector', 'optional'],
  type: ['selector', 'text', 'secret', 'optional'],
  press: ['key'],
  select: ['selector', 'value', 'optional'],
  check: ['selector', 'optional'],
  hover: ['selector', 'optional'],
  scroll_to: ['selector', 'optional'],
  wait_for_selector: ['selector', 'optional'],
  wait: ['ms'],
};

const SELECTOR_MAX = 1_000;
const URL_MAX = 8_192;
const VALUE_MAX = 1_000;

interface Problem {
  path: (string | number)[];
  message: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `steps` as given: a JSON array, or (GET query, task query) that array as a JSON string, or each step as a JSON string. */
function readSteps(raw: unknown): unknown[] | string {
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  if (typeof raw === 'string') {
    const parsed = parse(raw);
    if (Array.isArray(parsed)) return parsed;
    if (isRecord(parsed)) return [parsed];
    return 'must be a JSON array of steps such as [{"action":"click","selector":"#go"}]';
  }
  if (Array.isArray(raw)) return raw.map((item) => (typeof item === 'string' ? (parse(item) ?? item) : item));
  return 'must be an array of steps';
}

function stringField(step: Record<string, unknown>, field: Field, max: number, problems: Problem[], at: number): string | undefined {
  const v = step[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') problems.push({ path: [at, field], message: 'must be a string' });
  else if (v.length === 0) problems.push({ path: [at, field], message: 'must not be empty' });
  else if (v.length > max) problems.push({ path: [at, field], message: `must be at most ${max} characters` });
  else return v;
  return undefined;
}

function checkStep(raw: unknown, i: number, problems: Problem[]): BrowserStep | undefined {
  if (!isRecord(raw)) {
    problems.push({ path: [i], message: 'must be an object such as {"action":"click","selector":"#go"}' });
    return undefined;
  }
  const action = raw.action;
  if (typeof action !== 'string' || !(STEP_ACTIONS as readonly string[]).includes(action)) {
    problems.push({ path: [i, 'action'], message: `must be one of ${STEP_ACTIONS.join(', ')}` });
    return undefined;
  }
  const allowed = FIELDS[action as StepAction];
  const before = problems.length;
  for (const name of Object.keys(raw)) {
    if (name !== 'action' && !(allowed as readonly string[]).includes(name)) {
      problems.push({ path: [i, name], message: `is not a field of a ${action} step (it takes ${allowed.join(', ') || 'nothing else'})` });
    }
  }
  const step: BrowserStep = { action };
  const need = (field: Field, value: unknown) => {
    if (value === undefined && raw[field] === undefined) problems.push({ path: [i, field], message: `is required for a ${action} step` });
  };
  if (allowed.includes('selector')) {
    step.selector = stringField(raw, 'selector', SELECTOR_MAX, problems, i);
    need('selector', step.selector);
  }
  if (allowed.includes('optional') && raw.optional !== undefined) {
    if (typeof raw.optional !== 'boolean') problems.push({ path: [i, 'optional'], message: 'must be true or false' });
    else step.optional = raw.optional;
  }
  switch (action as StepAction) {
    case 'goto': {
      step.url = stringField(raw, 'url', URL_MAX, problems, i);
      need('url', step.url);
      if (step.url !== undefined && !/^https?:\/\//i.test(step.url)) problems.push({ path: [i, 'url'], message: 'must be an absolute http or https URL' });
      else if (step.url !== undefined && !URL.canParse(step.url)) problems.push({ path: [i, 'url'], message: 'must be an absolute URL' });
      break;
    }
    case 'type': {
      if (raw.text !== undefined && raw.secret !== undefined) problems.push({ path: [i, 'secret'], message: 'give text or secret, not both' });
      else if (raw.text === undefined && raw.secret === undefined) problems.push({ path: [i, 'text'], message: 'a type step needs text or secret' });
      step.text = stringField(raw, 'text', MAX_STEP_TEXT, problems, i);
      const secret = stringField(raw, 'secret', 64, problems, i);
      if (secret !== undefined && !SECRET_NAME.test(secret)) problems.push({ path: [i, 'secret'], message: `must be a secret's name: ${SECRET_NAME_RULE}` });
      else step.secret = secret;
      break;
    }
    case 'press': {
      step.key = stringField(raw, 'key', 16, problems, i);
      need('key', step.key);
      if (step.key !== undefined && [...step.key].length !== 1 && !(STEP_KEYS as readonly string[]).includes(step.key)) {
        problems.push({ path: [i, 'key'], message: `must be one character or one of ${STEP_KEYS.join(', ')}` });
      }
      break;
    }
    case 'select': {
      const v = raw.value;
      if (v === undefined) problems.push({ path: [i, 'value'], message: 'is required for a select step' });
      else if (typeof v !== 'string' || v.length > VALUE_MAX) problems.push({ path: [i, 'value'], message: `must be a string of at most ${VALUE_MAX} characters` });
      else step.value = v;
      break;
    }
    case 'wait': {
      const ms = typeof raw.ms === 'string' && raw.ms.trim() !== '' ? Number(raw.ms) : raw.ms;
      if (ms === undefined) problems.push({ path: [i, 'ms'], message: 'is required for a wait step' });
      else if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > MAX_STEP_WAIT_MS) {
        problems.push({ path: [i, 'ms'], message: `must be a whole number of milliseconds from 0 to ${MAX_STEP_WAIT_MS}` });
      } else step.ms = ms;
      break;
    }
    default:
      break;
  }
  return problems.length === before ? step : undefined;
}

/** The name of a problem's place inside a parameter: `steps`, `steps[2]`, `steps[2].selector`. */
export const placeName = (parameter: string, path: readonly PropertyKey[]): string =>
  path.reduce<string>((name, part) => (typeof part === 'number' ? `${name}[${part}]` : `${name}.${String(part)}`), parameter);

/**
 * `steps`: browser actions run in order once the page loaded. Each problem is reported at its place
 * (`steps[2].selector`), so validateRenderParams can name it.
 */
export const stepsParam = () =>
  z.any().transform((raw: unknown, ctx): BrowserStep[] => {
    const list = readSteps(raw);
    if (typeof list === 'string') {
      ctx.addIssue({ code: 'custom', message: list });
      return z.NEVER;
    }
    if (list.length > MAX_STEPS) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_STEPS} steps (${list.length} given)` });
      return z.NEVER;
    }
    const problems: Problem[] = [];
    const steps = list.map((item, i) => checkStep(item, i, problems));
    for (const p of problems) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
    return problems.length > 0 ? z.NEVER : (steps as BrowserStep[]);
  }).meta(STEPS_JSON_SCHEMA);

/** What the API reference shows of `steps` (the checks above are the rules). */
const STEPS_JSON_SCHEMA = {
  anyOf: [
    {
      type: 'array',
      maxItems: MAX_STEPS,
      items: {
        type: 'object',
        required: ['action'],
        additionalProperties: false,
        properties: {
          action: { type: 'string', enum: [...STEP_ACTIONS] },
          selector: { type: 'string', minLength: 1, maxLength: SELECTOR_MAX, description: 'CSS selector (click, type, select, check, hover, scroll_to, wait_for_selector).' },
          url: { type: 'string', maxLength: URL_MAX, description: 'goto: the address to load (passes the same address checks as url).' },
          text: { type: 'string', minLength: 1, maxLength: MAX_STEP_TEXT, description: 'type: the text typed.' },
          secret: { type: 'string', pattern: SECRET_NAME.source, description: 'type: the name of an account secret (POST /v1/secrets) typed instead of text.' },
          key: { type: 'string', description: `press: one character or one of ${STEP_KEYS.join(', ')}.` },
          value: { type: 'string', maxLength: VALUE_MAX, description: 'select: the option value chosen.' },
          ms: { type: 'integer', minimum: 0, maximum: MAX_STEP_WAIT_MS, description: 'wait: milliseconds.' },
          optional: { type: 'boolean', description: 'Skip the step when its element is absent (a sign-in form when already signed in).' },
        },
      },
    },
    { type: 'string', description: 'The same array as a JSON string (GET query, task query).' },
  ],
};

/** The secret names the steps type (each once). */
export const secretNamesOf = (steps: readonly BrowserStep[]): string[] => [...new Set(steps.flatMap((s) => (s.secret ? [s.secret] : [])))];
