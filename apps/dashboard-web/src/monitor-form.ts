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

/** Shows a task's monitor in the fields (editing a task); none: the box unticked and the fields emptied. */
export function fillMonitorFields(monitor: Record<string, unknown> | null | undefined): void {
  field('on').checked = Boolean(monitor);
  field('threshold').value = typeof monitor?.threshold === 'number' ? String(monitor.threshold) : '';
  field('selector').value = typeof monitor?.selector === 'string' ? monitor.selector : '';
  field('ignore_selectors').value = Array.isArray(monitor?.ignore_selectors) ? monitor.ignore_selectors.join(', ') : '';
  field<HTMLTextAreaElement>('ignore_text').value = Array.isArray(monitor?.ignore_text) ? monitor.ignore_text.join('\n') : '';
  field('confirm').checked = monitor?.confirm !== false;
}

/**
 * The monitor to send when a task's monitor fields were changed: the task's own monitor with what the
 * fields hold put over it (so its settings the form has no field for, notify or keywords, are kept), or
 * null when the box is unticked (monitoring stops).
 */
export function editedMonitorOf(api: string, current: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  const fields = monitorOf(api);
  if (!fields) return null;
  const kept = Object.fromEntries(Object.entries(current ?? {}).filter(([, v]) => v !== null && v !== undefined));
  // An emptied field goes back to its default.
  for (const name of ['threshold', 'selector']) if (!(name in fields)) delete kept[name];
  return { ...kept, ...fields };
}

/** Where a problem of the monitor is shown: `monitor.ignore_text[2]` → the ignore_text field. */
export function monitorFieldOf(parameter: string): string | undefined {
  const m = /^monitor(?:\.([a-z_]+))?/.exec(parameter);
  if (!m) return undefined;
  return m[1] ? `monitor-${m[1]}` : 'monitor-on';
}
