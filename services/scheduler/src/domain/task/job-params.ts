import type { RenderParams } from '@app/proto/render';
import { failOnStatusOf, type Monitor } from '../monitor/monitor.js';
import type { ActiveTask, RunTrigger } from './task.js';

/**
 * What starts a render of a task: its schedule's occurrence, its owner's run now, or a monitor's
 * confirming render of a suspected change. Every trigger's job gets its parameters from `jobParamsOf`.
 */
export type JobTrigger = RunTrigger | 'confirm';

/**
 * The render parameters a visual monitor adds to its task's jobs: `ignore_selectors` are hidden
 * (hide_selectors), and with `selector` every element that is neither it, inside it nor around it is
 * hidden too, so only the watched element is drawn and compared. A text monitor's `ignore_selectors` are
 * hidden as well (the text is taken from what is shown).
 */
export function monitorHideSelectors(monitor: Monitor | null | undefined): string[] {
  if (!monitor || monitor.mode !== 'visual') return monitor?.ignoreSelectors ?? [];
  const hide = [...monitor.ignoreSelectors];
  if (monitor.selector) {
    const s = `:is(${monitor.selector})`;
    hide.push(`body *:not(${s}, ${s} *, :has(${s}))`);
  }
  return hide;
}

const union = (a: readonly string[] | undefined, b: readonly string[]): string[] => [...new Set([...(a ?? []), ...b])];

/**
 * The parameters of a monitored page: its masking, and the checks that make an error page a failed run
 * instead of a result (fail_on_status, default 400-599, for a page loaded from its url; the
 * fail_if_content_* strings), added to the query's own.
 */
function monitoredParams(params: RenderParams, monitor: Monitor): RenderParams {
  const hide = monitorHideSelectors(monitor);
  const status = params.url ? failOnStatusOf(monitor) : [];
  const contains = monitor.failIfContentContains ?? [];
  const missing = monitor.failIfContentMissing ?? [];
  return {
    ...params,
    ...(hide.length > 0 ? { hide_selectors: [...params.hide_selectors, ...hide] } : {}),
    ...(status.length > 0 ? { fail_on_status: union(params.fail_on_status, status) } : {}),
    ...(contains.length > 0 ? { fail_if_content_contains: union(params.fail_if_content_contains, contains) } : {}),
    ...(missing.length > 0 ? { fail_if_content_missing: union(params.fail_if_content_missing, missing) } : {}),
  };
}

/**
 * The render parameters of a task's job, decided from the task as the run-start pipeline loaded it (its
 * definition as of the run's start) and the run's trigger; `query` is the task's query validated with its
 * operation's rules (a pure function of the definition, which the pipeline keeps between runs).
 *
 * A monitoring task's jobs carry the monitor's masking and failure checks, so the renderer draws (or
 * scrapes) the page as the monitor compares it and fails an error page; and no `webhook_url`: a monitoring
 * task's webhook announces its changes only (`task.changed`, from the comparison), so an unchanged run
 * sends nothing. Any other task's jobs carry the query's parameters as they are. Every trigger (due time,
 * ahead, run now, confirm) gets the same parameters: the trigger is an input so that a difference would be
 * decided here, in one place.
 */
export function jobParamsOf(task: ActiveTask, query: RenderParams, _run: { trigger: JobTrigger }): RenderParams {
  const { monitor } = task.definition;
  if (!monitor) return query;
  const { webhook_url: _announcedOnChange, webhook_signed: _signedLikeIt, ...rest } = query;
  return monitoredParams(rest, monitor);
}
