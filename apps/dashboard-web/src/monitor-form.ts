import { $ } from './dom.js';

/** The new-task form's monitor fields: shown when "Watch for changes" is on, read into the `monitor` field. */

const field = <T extends HTMLElement = HTMLInputElement>(name: string) => $<T>(`task-monitor-${name}`);

export function bindMonitorFields(): () => void {
  const on = field('on');
  const sync = () => (field('fields').hidden = !on.checked);
  on.addEventListener('change', sync);
  sync();
  return sync;
}

const list = (value: string, separator: RegExp) =>
  value
    .split(separator)
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** The monitor of a task of `api`, or undefined when the box is not ticked. */
export function monitorOf(api: string): Record<string, unknown> | undefined {
  if (!field('on').checked) return undefined;
  const monitor: Record<string, unknown> = {
    mode: api === 'scrape' ? 'text' : 'visual',
    confirm: field('confirm').checked,
    ignore_selectors: list(field('ignore_selectors').value, /,(?![^(]*\))/),
    ignore_text: list(field<HTMLTextAreaElement>('ignore_text').value, /\n/),
  };
  const threshold = field('threshold').value.trim();
  if (threshold !== '') monitor.threshold = Number(threshold);
  const selector = field('selector').value.trim();
  if (selector !== '') monitor.selector = selector;
  return monitor;
}

/** Where a problem of the monitor is shown: `monitor.ignore_text[2]` → the ignore_text field. */
export function monitorFieldOf(parameter: string): string | undefined {
  const m = /^monitor(?:\.([a-z_]+))?/.exec(parameter);
  if (!m) return undefined;
  return m[1] ? `monitor-${m[1]}` : 'monitor-on';
}
