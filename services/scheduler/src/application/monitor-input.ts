import { parse as parseHtml } from 'node-html-parser';
import type { ParameterProblem } from '@app/errors';
import type { TaskMonitor } from '@app/proto/scheduler';
import type { TaskMonitorResource } from '@app/task-resources';
import {
  DEFAULT_THRESHOLD,
  MAX_IGNORE_SELECTORS,
  MAX_IGNORE_TEXT,
  MODE_API,
  MONITOR_MODES,
  type Monitor,
  type MonitorMode,
} from '../domain/monitor/monitor.js';
import type { TaskApi } from '../domain/task/task.js';
import { linearPatternProblem } from '../comparison/linear-regexp.js';

/** The `monitor` field as the caller sends it (the gRPC message's fields; its lists may be left out). */
export type MonitorInput = TaskMonitorResource;

/** A checked monitor as the caller's fields: the gRPC message, and the input that checks it again. */
export const monitorFieldsOf = (m: Monitor): TaskMonitor => ({
  mode: m.mode,
  threshold: m.threshold,
  selector: m.selector,
  ignore_selectors: m.ignoreSelectors,
  ignore_text: m.ignoreText,
  confirm: m.confirm,
});

const MAX_SELECTOR_LENGTH = 1_000;
const MAX_TEXT_THRESHOLD = 1_000_000;

const isMode = (v: string): v is MonitorMode => (MONITOR_MODES as readonly string[]).includes(v);
const probe = parseHtml('<html><body></body></html>');

function selectorProblem(selector: string): string | undefined {
  if (selector.trim() === '') return 'must not be empty';
  if (selector.length > MAX_SELECTOR_LENGTH) return `must be at most ${MAX_SELECTOR_LENGTH} characters`;
  try {
    probe.querySelector(selector);
    return undefined;
  } catch {
    return 'is not a valid CSS selector';
  }
}

/**
 * A pattern of ignore_text: a valid regular expression that the linear-time engine runs (so its matching
 * time cannot explode). A syntax check of at most 1,000 characters, not an analysis: a fraction of a
 * millisecond, done where the task is saved.
 */
export const patternProblem = linearPatternProblem;

/**
 * The task's monitor from the caller's field, checked against the task's api and query format; problems
 * name the field (`monitor.threshold`, `monitor.ignore_text[2]`).
 */
export function checkMonitor(
  api: TaskApi | undefined,
  input: MonitorInput,
  format: string | undefined,
  problems: ParameterProblem[],
): Monitor | undefined {
  const before = problems.length;
  const add = (parameter: string, message: string) => problems.push({ parameter, message });
  if (!isMode(input.mode)) {
    add('monitor.mode', `monitor.mode must be one of ${MONITOR_MODES.join(', ')}`);
    return undefined;
  }
  const mode = input.mode;
  if (api && api !== 'screenshot' && api !== 'scrape') {
    add('monitor', `monitor is only for screenshot tasks (mode visual) and scrape tasks (mode text), not ${api}`);
  } else if (api && MODE_API[mode] !== api) {
    add('monitor.mode', `monitor.mode ${mode} watches ${MODE_API[mode]} tasks; this task runs ${api}`);
  }
  const threshold = input.threshold ?? DEFAULT_THRESHOLD[mode];
  const max = mode === 'visual' ? 100 : MAX_TEXT_THRESHOLD;
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > max) {
    add('monitor.threshold', `monitor.threshold must be between 0 and ${max} (${mode === 'visual' ? 'percent of pixels' : 'changed characters'})`);
  }
  if (input.selector !== undefined) {
    const problem = selectorProblem(input.selector);
    if (problem) add('monitor.selector', `monitor.selector ${problem}`);
    else if (mode === 'text' && format !== undefined && format !== 'html') add('monitor.selector', 'monitor.selector needs the scrape format html');
  }
  const ignoreSelectors = input.ignore_selectors ?? [];
  if (ignoreSelectors.length > MAX_IGNORE_SELECTORS) add('monitor.ignore_selectors', `monitor.ignore_selectors takes at most ${MAX_IGNORE_SELECTORS} selectors`);
  ignoreSelectors.forEach((s, i) => {
    const problem = selectorProblem(s);
    if (problem) add(`monitor.ignore_selectors[${i}]`, `monitor.ignore_selectors[${i}] ${problem}`);
  });
  const ignoreText = input.ignore_text ?? [];
  if (ignoreText.length > 0 && mode !== 'text') add('monitor.ignore_text', 'monitor.ignore_text applies to mode text only');
  if (ignoreText.length > MAX_IGNORE_TEXT) add('monitor.ignore_text', `monitor.ignore_text takes at most ${MAX_IGNORE_TEXT} patterns`);
  ignoreText.slice(0, MAX_IGNORE_TEXT).forEach((p, i) => {
    const problem = patternProblem(p);
    if (problem) add(`monitor.ignore_text[${i}]`, `monitor.ignore_text[${i}] ${problem}`);
  });
  if (problems.length > before) return undefined;
  return {
    mode,
    threshold,
    ...(input.selector !== undefined ? { selector: input.selector } : {}),
    ignoreSelectors,
    ignoreText,
    confirm: input.confirm ?? true,
  };
}
