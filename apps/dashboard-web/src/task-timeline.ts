import type { RunChangeResource, TaskRunResource } from '@app/task-resources';
import { api, ApiError } from './api.js';
import { $, busy, formatTime, h } from './dom.js';

/** A monitoring task as its detail needs it. */
export type TimelineTask = {
  id: number;
  name: string;
  monitor?: { mode: string; alert_after_failures?: number; keep?: number; notify?: { type: string }[] } | null;
};
type Run = Pick<TaskRunResource, 'id' | 'trigger' | 'status' | 'started' | 'error'> & { change?: RunChangeResource | null };

/** One delivery of an announcement (GET /dashboard/api/tasks/{id}/deliveries). */
type Delivery = {
  announcement: string;
  kind: string;
  run_id: string;
  channel: string;
  target: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt: number | null;
  next_attempt: number | null;
};

const KEPT = new Set(['baseline', 'unchanged', 'changed']);
const DEFAULT_KEEP = 50;
const DEFAULT_ALERT_AFTER = 3;

const failed = (r: Run) => r.status === 'failed' || r.change?.status === 'failed';
const runLabel = (r: Run) => `${formatTime(r.started)}${r.change ? ` · ${r.change.status}` : ''}`;

/** Failed runs in a row, newest first, when there are at least alert_after_failures of them (0: never). */
export function failingOf(task: TimelineTask, runs: readonly Run[]): { count: number; since: number; reason: string } | undefined {
  const after = task.monitor?.alert_after_failures ?? DEFAULT_ALERT_AFTER;
  const finished = runs.filter((r) => r.status !== 'running');
  let count = 0;
  while (count < finished.length && failed(finished[count]!)) count++;
  if (!task.monitor || after === 0 || count < after) return undefined;
  const last = finished[0]!;
  return { count, since: finished[count - 1]!.started, reason: last.error?.message ?? last.change?.summary ?? 'The run failed.' };
}

function showFailing(task: TimelineTask, runs: readonly Run[]): void {
  const failing = failingOf(task, runs);
  const banner = $('task-failing');
  banner.hidden = !failing;
  if (failing) {
    banner.replaceChildren(
      h('strong', {}, 'Failing: '),
      `the last ${failing.count} runs failed (since ${formatTime(failing.since)}). Last reason: ${failing.reason}`,
    );
  }
}

/** The compared runs, newest first, each a point on the timeline; the kept ones can be compared. */
function showTimeline(task: TimelineTask, runs: readonly Run[]): Run[] {
  const kept = runs.filter((r) => r.change && KEPT.has(r.change.status)).slice(0, task.monitor?.keep ?? DEFAULT_KEEP);
  $('task-timeline-list').replaceChildren(
    ...runs
      .filter((r) => r.change || r.status === 'failed')
      .map((r) => {
        const status = r.change?.status ?? r.status;
        return h(
          'li',
          { class: `point ${status}`, 'data-run-id': r.id },
          h('span', { class: `status ${status}` }, status),
          ` ${formatTime(r.started)}`,
          r.change?.summary ? h('span', { class: 'muted' }, ` · ${r.change.summary}`) : r.error ? h('span', { class: 'muted' }, ` · ${r.error.message}`) : '',
        );
      }),
  );
  const options = () => kept.map((r) => h('option', { value: r.id }, runLabel(r)));
  const from = $<HTMLSelectElement>('task-compare-from');
  const to = $<HTMLSelectElement>('task-compare-to');
  const [chosenFrom, chosenTo] = [from.value, to.value];
  from.replaceChildren(...options());
  to.replaceChildren(...options());
  // Default: the oldest kept run against the newest; a choice made before a refresh stays.
  if (kept.some((r) => r.id === chosenFrom)) from.value = chosenFrom;
  else if (kept.length > 0) from.value = kept[kept.length - 1]!.id;
  if (kept.some((r) => r.id === chosenTo)) to.value = chosenTo;
  else if (kept.length > 0) to.value = kept[0]!.id;
  $('task-compare').hidden = kept.length < 2;
  $('task-timeline-empty').hidden = kept.length >= 2;
  return kept;
}

function showComparison(change: RunChangeResource, visual: boolean): void {
  const diff = !change.diff
    ? h('p', { class: 'muted' }, 'No difference.')
    : visual
      ? h('a', { href: change.diff, target: '_blank', rel: 'noopener' }, h('img', { src: change.diff, alt: 'Difference image' }))
      : h('iframe', { src: change.diff, title: 'Difference (unified diff)', sandbox: '' });
  $('task-compare-result').replaceChildren(
    h('p', { class: 'change-head' }, h('span', { class: `status ${change.status}` }, change.status), ` ${change.summary}`),
    h('figure', { class: 'change-pane' }, h('figcaption', {}, 'Difference'), diff),
    change.diff ? h('p', {}, h('a', { href: change.diff, target: '_blank', rel: 'noopener' }, 'Open the diff file')) : '',
  );
  $('task-compare-result').hidden = false;
}

function deliveryRow(d: Delivery): HTMLTableRowElement {
  const attempts = `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`;
  const last = d.last_error ? ` (${d.last_error}${d.last_status ? ` ${d.last_status}` : ''})` : d.last_status ? ` (HTTP ${d.last_status})` : '';
  const next = d.state === 'pending' && d.next_attempt ? `, next ${formatTime(d.next_attempt)}` : '';
  return h(
    'tr',
    { 'data-delivery': `${d.announcement}:${d.channel}` },
    // One element a cell: on a phone each cell is a label and its value side by side, the value wrapping.
    h('td', { 'data-label': 'Announcement' }, h('span', { class: 'cell' }, d.kind, h('span', { class: 'muted' }, ` · ${d.run_id}`))),
    h('td', { 'data-label': 'Channel' }, h('span', { class: 'cell' }, d.channel, d.target ? h('span', { class: 'muted' }, ` ${d.target}`) : '')),
    h('td', { 'data-label': 'Delivery' }, h('span', { class: 'cell' }, h('span', { class: `status ${d.state}` }, d.state), ` ${attempts}${last}${next}`)),
    h('td', { 'data-label': 'Last attempt' }, h('span', { class: 'cell' }, formatTime(d.last_attempt))),
  );
}

async function showDeliveries(task: TimelineTask): Promise<void> {
  const { deliveries } = await api<{ deliveries: Delivery[] }>('GET', `/tasks/${task.id}/deliveries`);
  $('task-deliveries-body').replaceChildren(...deliveries.map(deliveryRow));
  $('task-deliveries-empty').hidden = deliveries.length > 0;
}

let current: TimelineTask | undefined;

/** The monitor's part of a task's detail: failing state, compared runs (any two compared), deliveries. */
export async function showMonitorDetail(task: TimelineTask, runs: readonly Run[]): Promise<void> {
  const monitored = Boolean(task.monitor);
  $('task-monitor-detail').hidden = !monitored;
  if (!monitored) return;
  if (current?.id !== task.id) $('task-compare-result').hidden = true;
  current = task;
  showFailing(task, runs);
  showTimeline(task, runs);
  await showDeliveries(task).catch((err: unknown) => {
    if (!(err instanceof ApiError)) throw err;
    $('task-deliveries-body').replaceChildren();
    $('task-deliveries-empty').hidden = false;
  });
}

export function bindTimeline(report: (err: unknown) => void): void {
  const form = $<HTMLFormElement>('task-compare');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const task = current;
    if (!task) return;
    const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
    const query = new URLSearchParams({ from: $<HTMLSelectElement>('task-compare-from').value, to: $<HTMLSelectElement>('task-compare-to').value });
    void busy(button, async () => {
      $('task-compare-error').textContent = '';
      try {
        const change = await api<RunChangeResource>('GET', `/tasks/${task.id}/compare?${query}`);
        showComparison(change, task.monitor?.mode !== 'text');
        $('task-compare-result').focus();
      } catch (err) {
        if (err instanceof ApiError && err.code !== 'session_expired') $('task-compare-error').textContent = err.message;
        else report(err);
      }
    });
  });
}
