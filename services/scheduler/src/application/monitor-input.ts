import { parse as parseHtml } from 'node-html-parser';
import type { ParameterProblem } from '@app/errors';
import type { TaskMonitor } from '@app/proto/scheduler';
import type { TaskMonitorResource } from '@app/task-resources';
import {
  alertAfterFailuresOf,
  CHAT_TYPES,
  DEFAULT_FAIL_ON_STATUS,
  keepOf,
  DEFAULT_THRESHOLD,
  MAX_KEEP,
  MAX_KEYWORDS,
  MAX_NOTIFY,
  TRIGGERS,
  type NotifyChannel,
  type Trigger,
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
  // An empty list turns the check off; a message cannot tell it from a list left out, so it travels as "none".
  fail_on_status: m.failOnStatus === undefined ? DEFAULT_FAIL_ON_STATUS : m.failOnStatus.length === 0 ? [NO_STATUS] : m.failOnStatus,
  fail_if_content_contains: m.failIfContentContains ?? [],
  fail_if_content_missing: m.failIfContentMissing ?? [],
  alert_after_failures: alertAfterFailuresOf(m),
  notify: (m.notify ?? []).map((n) => (n.type === 'email' ? { type: n.type, to: n.to } : { type: n.type, url: n.url })),
  ...(m.mode === 'text' ? { trigger: m.trigger ?? 'any' } : {}),
  keywords: m.keywords ?? [],
  keep: keepOf(m),
});

/** `fail_on_status: "none"`: no status fails a run. */
export const NO_STATUS = 'none';
const STATUS_ITEM = /^(\d{3})(?:-(\d{3}))?$/;
const MAX_CONTENT_CHECKS = 20;
const MAX_CONTENT_LENGTH = 1_000;
const MAX_KEYWORD_LENGTH = 200;
const MAX_ALERT_AFTER = 1_000;
const EMAIL = /^[^\s@<>(),;:"\\]+@[^\s@<>(),;:"\\]+\.[^\s@<>(),;:"\\]+$/;

function statusProblem(item: string): string | undefined {
  const m = STATUS_ITEM.exec(item.replace(/\s+/g, ''));
  if (!m) return 'must be a status code or a range such as 404 or "500-599"';
  const [from, to] = [Number(m[1]), Number(m[2] ?? m[1])];
  if (from < 100 || to > 599) return 'must be status codes from 100 to 599';
  if (from > to) return 'a range must not end before it starts';
  return undefined;
}

function checkStrings(name: string, list: string[], max: number, maxLength: number, add: (p: string, m: string) => void): string[] {
  if (list.length > max) add(name, `${name} takes at most ${max} strings`);
  list.slice(0, max).forEach((s, i) => {
    if (s.trim() === '') add(`${name}[${i}]`, `${name}[${i}] must not be empty`);
    else if (s.length > maxLength) add(`${name}[${i}]`, `${name}[${i}] must be at most ${maxLength} characters`);
  });
  return list;
}

function checkNotify(input: MonitorInput['notify'], add: (p: string, m: string) => void): NotifyChannel[] {
  const list = input ?? [];
  if (list.length > MAX_NOTIFY) add('monitor.notify', `monitor.notify takes at most ${MAX_NOTIFY} channels`);
  const channels: NotifyChannel[] = [];
  list.slice(0, MAX_NOTIFY).forEach((n, i) => {
    const name = `monitor.notify[${i}]`;
    if (n.type === 'email') {
      const to = (n.to ?? '').trim();
      if (!EMAIL.test(to) || to.length > 254) add(`${name}.to`, `${name}.to must be an email address`);
      else channels.push({ type: 'email', to });
      return;
    }
    if (!(CHAT_TYPES as readonly string[]).includes(n.type)) {
      add(`${name}.type`, `${name}.type must be one of ${[...CHAT_TYPES, 'email'].join(', ')}`);
      return;
    }
    let url: URL | undefined;
    try {
      url = new URL(n.url ?? '');
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || (n.url ?? '').length > 2_000) {
      add(`${name}.url`, `${name}.url must be the ${n.type} incoming webhook's https URL`);
    } else channels.push({ type: n.type as NotifyChannel['type'] & string, url: url.href } as NotifyChannel);
  });
  return channels;
}

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
  const failOnStatus = (input.fail_on_status ?? []).map((s) => s.replace(/\s+/g, ''));
  if (failOnStatus.length > 50) add('monitor.fail_on_status', 'monitor.fail_on_status takes at most 50 codes or ranges');
  const noStatus = failOnStatus.length === 1 && failOnStatus[0] === NO_STATUS;
  if (!noStatus) {
    failOnStatus.slice(0, 50).forEach((s, i) => {
      const problem = statusProblem(s);
      if (problem) add(`monitor.fail_on_status[${i}]`, `monitor.fail_on_status[${i}] ${problem} (or "none")`);
    });
  }
  const contains = checkStrings('monitor.fail_if_content_contains', input.fail_if_content_contains ?? [], MAX_CONTENT_CHECKS, MAX_CONTENT_LENGTH, add);
  const missing = checkStrings('monitor.fail_if_content_missing', input.fail_if_content_missing ?? [], MAX_CONTENT_CHECKS, MAX_CONTENT_LENGTH, add);
  const alertAfter = input.alert_after_failures;
  if (alertAfter !== undefined && (!Number.isInteger(alertAfter) || alertAfter < 0 || alertAfter > MAX_ALERT_AFTER)) {
    add('monitor.alert_after_failures', `monitor.alert_after_failures must be a whole number from 0 (never) to ${MAX_ALERT_AFTER}`);
  }
  const notify = checkNotify(input.notify, add);
  const trigger = input.trigger;
  if (trigger !== undefined && !(TRIGGERS as readonly string[]).includes(trigger)) add('monitor.trigger', `monitor.trigger must be one of ${TRIGGERS.join(', ')}`);
  else if (trigger !== undefined && trigger !== 'any' && mode !== 'text') add('monitor.trigger', 'monitor.trigger applies to mode text only');
  const keywords = checkStrings('monitor.keywords', input.keywords ?? [], MAX_KEYWORDS, MAX_KEYWORD_LENGTH, add);
  if (keywords.length > 0 && mode !== 'text') add('monitor.keywords', 'monitor.keywords applies to mode text only');
  const keep = input.keep;
  if (keep !== undefined && (!Number.isInteger(keep) || keep < 2 || keep > MAX_KEEP)) add('monitor.keep', `monitor.keep must be a whole number from 2 to ${MAX_KEEP}`);
  if (problems.length > before) return undefined;
  return {
    mode,
    threshold,
    ...(input.selector !== undefined ? { selector: input.selector } : {}),
    ignoreSelectors,
    ignoreText,
    confirm: input.confirm ?? true,
    ...(failOnStatus.length > 0 ? { failOnStatus: noStatus ? [] : failOnStatus } : {}),
    ...(contains.length > 0 ? { failIfContentContains: contains } : {}),
    ...(missing.length > 0 ? { failIfContentMissing: missing } : {}),
    ...(alertAfter !== undefined ? { alertAfterFailures: alertAfter } : {}),
    ...(notify.length > 0 ? { notify } : {}),
    ...(trigger !== undefined ? { trigger: trigger as Trigger } : {}),
    ...(keywords.length > 0 ? { keywords } : {}),
    ...(keep !== undefined ? { keep } : {}),
  };
}
