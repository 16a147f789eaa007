import type { RenderJob } from '@app/proto/render';
import type { RenderParams } from '@app/proto/render';
import { failOnStatusOf, type Monitor } from '../domain/monitor/monitor.js';
import type { RenderJobs } from '../application/ports.js';

/**
 * The render parameters a visual monitor adds to its task's jobs: `ignore_selectors` are hidden
 * (hide_selectors), and with `selector` every element that is neither it, inside it nor around it is
 * hidden too, so only the watched element is drawn and compared.
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
 * The render parameters of a monitored page: its masking, and the checks that make an error page a failed
 * run instead of a result (fail_on_status, default 400-599, for a page loaded from its url; the
 * fail_if_content_* strings), added to the query's own.
 */
export function monitoredParams(params: RenderParams, monitor: Monitor | null | undefined): RenderParams {
  if (!monitor) return params;
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
 * Render jobs of monitoring tasks carry the monitor's masking and clipping, and its failure checks, as render
 * parameters, so the renderer draws (or scrapes) the page as the monitor compares it and fails an error
 * page. Other jobs pass through unchanged.
 */
export function monitoredRenderJobs(jobs: RenderJobs, monitorOf: (taskId: number) => Promise<Monitor | null | undefined>): RenderJobs {
  const withMonitor = async (job: RenderJob): Promise<RenderJob> => {
    if (job.origin !== 'task' || !job.task_id || !job.params) return job;
    const monitor = await monitorOf(Number(job.task_id));
    return monitor ? { ...job, params: monitoredParams(job.params, monitor) } : job;
  };
  return {
    publish: async (job) => jobs.publish(await withMonitor(job)),
    prepare: async (job) => jobs.prepare(await withMonitor(job)),
    withoutJob: (e) => jobs.withoutJob(e),
  };
}
