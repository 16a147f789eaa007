import type { RunChangeResource, TaskRunResource } from '@app/task-resources';
import { api } from './api.js';
import { $, formatTime, h } from './dom.js';

/** A run of GET /tasks/{id}/changes: it has a change, its files as URLs. */
type ChangedRun = Pick<TaskRunResource, 'id' | 'started'> & { change: RunChangeResource };

function figure(label: string, url: string | null, visual: boolean): HTMLElement {
  const body = !url
    ? h('p', { class: 'muted' }, 'Gone (expired).')
    : visual
      ? h('a', { href: url, target: '_blank', rel: 'noopener' }, h('img', { src: url, alt: `${label} image`, loading: 'lazy' }))
      : h('iframe', { src: url, title: `${label} text`, sandbox: '' });
  return h('figure', { class: 'change-pane' }, h('figcaption', {}, label), body);
}

/** Before and after stacked, the after image revealed up to the slider's position. */
function slider(before: string, after: string): HTMLElement {
  const range = h('input', { type: 'range', min: '0', max: '100', value: '50', 'aria-label': 'Reveal the after image' });
  const top = h('img', { src: after, alt: 'After', class: 'swipe-after', loading: 'lazy' });
  const set = () => (top.style.clipPath = `inset(0 ${100 - Number(range.value)}% 0 0)`);
  range.addEventListener('input', set);
  set();
  const caption = h('p', { class: 'swipe-caption' }, h('span', {}, '◀ After'), h('span', {}, 'Before ▶'));
  return h('div', { class: 'swipe' }, caption, h('div', { class: 'swipe-stage' }, h('img', { src: before, alt: 'Before', loading: 'lazy' }), top), range);
}

function item(run: ChangedRun, visual: boolean): HTMLElement {
  const { change } = run;
  const panes = h(
    'div',
    { class: 'change-panes' },
    figure('Before', change.before, visual),
    figure('After', change.after, visual),
    figure('Difference', change.diff, visual),
  );
  const parts: HTMLElement[] = [
    h('p', { class: 'change-head' }, h('strong', {}, formatTime(run.started)), ` · ${change.summary}`),
    panes,
  ];
  if (visual && change.before && change.after) parts.push(slider(change.before!, change.after!));
  return h('li', { class: 'change', 'data-run-id': run.id }, ...parts);
}

/** The task's changes, newest first, each with before, after and the diff side by side. */
export async function showChanges(task: { id: number; name: string; monitor?: { mode: string } | null }): Promise<void> {
  const visual = task.monitor?.mode !== 'text';
  const { changes } = await api<{ changes: ChangedRun[] }>('GET', `/tasks/${task.id}/changes`);
  $('task-changes-title').textContent = `Changes of “${task.name}”`;
  $('task-changes-list').replaceChildren(...changes.map((run) => item(run, visual)));
  $('task-changes-empty').hidden = changes.length > 0;
  $('task-changes').hidden = false;
}
