import type { RenderJob } from '@app/proto/render';
import type { Monitor } from '../domain/monitor/monitor.js';
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

/**
 * Render jobs of monitoring tasks carry the monitor's masking and clipping as render parameters, so the
 * renderer draws (or scrapes) the page as the monitor compares it. Other jobs pass through unchanged.
 */
export function monitoredRenderJobs(jobs: RenderJobs, monitorOf: (taskId: number) => Promise<Monitor | null | undefined>): RenderJobs {
  const withMonitor = async (job: RenderJob): Promise<RenderJob> => {
    if (job.origin !== 'task' || !job.task_id || !job.params) return job;
    const hide = monitorHideSelectors(await monitorOf(Number(job.task_id)));
    if (hide.length === 0) return job;
    return { ...job, params: { ...job.params, hide_selectors: [...job.params.hide_selectors, ...hide] } };
  };
  return {
    publish: async (job) => jobs.publish(await withMonitor(job)),
    prepare: async (job) => jobs.prepare(await withMonitor(job)),
    withoutJob: (e) => jobs.withoutJob(e),
  };
}
