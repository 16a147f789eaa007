import { api, ApiError } from './api.js';
import { $, busy, clearProblems, formatTime, h, notice, showProblems } from './dom.js';
import { session } from './session.js';
import { bindMonitorFields, monitorFieldOf, monitorOf } from './monitor-form.js';
import { showChanges } from './task-changes.js';
import { bindTimeline, showMonitorDetail, type TimelineTask } from './task-timeline.js';

/** A task as /dashboard/api/tasks returns it (the fields this page shows). */
type Task = {
  id: number;
  name: string;
  api: string;
  frequency: string;
  crontab: string;
  timezone: string;
  enabled: boolean;
  runs: number;
  last_run: number | null;
  monitor?: TimelineTask['monitor'];
};

type Run = Parameters<typeof showMonitorDetail>[1][number] & { finished: number | null; file: string | null };

const FORM = {
  prefix: 'task-',
  errorId: 'task-form-error',
  fieldOf: (p: string) => (p.startsWith('query.') ? 'query' : (monitorFieldOf(p) ?? p)),
};
const DRAFT_KEY = 'dashboard.task-draft';
const FIELDS = ['name', 'api', 'query', 'frequency', 'crontab', 'timezone'] as const;
let openRunsOf: Task | undefined;

const input = (name: string) => $<HTMLInputElement | HTMLSelectElement>(`task-${name}`);

function schedule(t: Task): string {
  const label: Record<string, string> = { every_minute: 'Every minute', every_hour: 'Every hour', every_day: 'Every day', every_month: 'Every month' };
  return `${label[t.frequency] ?? 'Cron'} (${t.crontab}, ${t.timezone})`;
}

function row(t: Task, refresh: () => Promise<void>): HTMLTableRowElement {
  const toggle = h('input', { type: 'checkbox', role: 'switch', 'aria-label': `Enabled: ${t.name}`, checked: t.enabled });
  toggle.addEventListener('change', async () => {
    try {
      await api('PATCH', `/tasks/${t.id}`, { enabled: toggle.checked });
      notice(`${t.name} is ${toggle.checked ? 'enabled' : 'disabled'}.`);
    } catch (err) {
      toggle.checked = !toggle.checked;
      report(err);
    }
  });
  const history = h('button', { type: 'button', class: 'small' }, 'History');
  history.addEventListener('click', () => void showRuns(t).catch(report));
  const runNow = h('button', { type: 'button', class: 'small', 'aria-label': `Run ${t.name} now` }, 'Run now');
  runNow.addEventListener('click', () => {
    void busy(runNow, async () => {
      await api('POST', `/tasks/${t.id}/runs`);
      notice(`A run of ${t.name} started.`);
      await showRuns(t, false);
    }).catch(report);
  });
  const changes = h('button', { type: 'button', class: 'small', 'aria-label': `Changes of ${t.name}` }, 'Changes');
  changes.addEventListener('click', () => void showChanges(t).then(() => $('task-changes').focus()).catch(report));
  const remove = h('button', { type: 'button', class: 'small', 'aria-label': `Delete ${t.name}` }, 'Delete');
  remove.addEventListener('click', () => {
    if (!confirm(`Delete the task “${t.name}”? It stops at once.`)) return;
    void busy(remove, async () => {
      await api('DELETE', `/tasks/${t.id}`);
      if (openRunsOf?.id === t.id) $('task-runs').hidden = true;
      $('task-changes').hidden = true;
      notice(`${t.name} was deleted.`);
      await refresh();
    }).catch(report);
  });
  return h(
    'tr',
    { 'data-task-id': String(t.id) },
    h('td', { 'data-label': 'Name' }, t.name),
    h('td', { 'data-label': 'Operation' }, t.api),
    h('td', { 'data-label': 'Schedule' }, schedule(t)),
    h('td', { 'data-label': 'Enabled' }, toggle),
    h('td', { 'data-label': 'Runs', class: 'runs' }, String(t.runs)),
    h('td', { 'data-label': 'Last run' }, formatTime(t.last_run)),
    h('td', { class: 'row-actions' }, h('div', { class: 'actions' }, history, runNow, ...(t.monitor ? [changes] : []), remove)),
  );
}

export async function showTasks(): Promise<void> {
  $('tasks-plan-note').hidden = session().account.plan === 'scale';
  const { tasks } = await api<{ tasks: Task[] }>('GET', '/tasks');
  const body = document.querySelector<HTMLTableSectionElement>('#tasks-table tbody')!;
  body.replaceChildren(...tasks.map((t) => row(t, showTasks)));
  $('tasks-empty').hidden = tasks.length > 0;
  // A link to a task (#tasks/<id>, as notifications send it) opens it.
  const linked = tasks.find((t) => `#tasks/${t.id}` === location.hash);
  if (linked) await showRuns(linked);
  else if (openRunsOf && tasks.some((t) => t.id === openRunsOf!.id)) await showRuns(openRunsOf, false);
}

async function showRuns(t: Task, focus = true): Promise<void> {
  openRunsOf = t;
  const { runs } = await api<{ runs: Run[] }>('GET', `/tasks/${t.id}/runs`);
  $('task-runs-title').textContent = `Run history of “${t.name}”`;
  $('task-runs-body').replaceChildren(
    ...runs.map((r) =>
      h(
        'tr',
        { 'data-trigger': r.trigger },
        h('td', { 'data-label': 'Started' }, formatTime(r.started), r.trigger === 'manual' ? h('span', { class: 'muted' }, ' (run now)') : ''),
        h('td', { 'data-label': 'Outcome' }, h('span', { class: `status ${r.status}` }, r.status), r.error ? ` ${r.error.message}` : ''),
        h('td', { 'data-label': 'Finished' }, formatTime(r.finished)),
        h('td', { 'data-label': 'Result' }, r.file ? h('a', { href: r.file, target: '_blank', rel: 'noopener' }, 'Open result') : '–'),
      ),
    ),
  );
  $('task-runs-empty').hidden = runs.length > 0;
  $('task-runs').hidden = false;
  await showMonitorDetail(t, runs);
  if (focus) $('task-runs').focus();
}

function saveDraft(): void {
  const draft = Object.fromEntries(FIELDS.map((f) => [f, input(f).value]));
  sessionStorage.setItem(DRAFT_KEY, JSON.stringify(draft));
}

function restoreDraft(): void {
  try {
    const draft = JSON.parse(sessionStorage.getItem(DRAFT_KEY) ?? '{}') as Record<string, string>;
    for (const f of FIELDS) if (typeof draft[f] === 'string') input(f).value = draft[f]!;
  } catch {
    sessionStorage.removeItem(DRAFT_KEY);
  }
}

export function bindTasks(): void {
  const form = $<HTMLFormElement>('task-form');
  const frequency = input('frequency');
  const syncCrontab = () => ($('task-crontab-field').hidden = frequency.value !== 'custom');
  restoreDraft();
  syncCrontab();
  const syncMonitor = bindMonitorFields();
  bindTimeline(report);
  frequency.addEventListener('change', syncCrontab);
  // What is typed survives a reload or an expired session (nothing secret is in this form).
  form.addEventListener('input', saveDraft);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
    void busy(submit, async () => {
      clearProblems(FORM);
      const body: Record<string, unknown> = {
        name: input('name').value,
        api: input('api').value,
        query: input('query').value,
        frequency: frequency.value,
        timezone: input('timezone').value,
        enabled: $<HTMLInputElement>('task-enabled').checked,
      };
      if (frequency.value === 'custom') body.crontab = input('crontab').value;
      const monitor = monitorOf(input('api').value);
      if (monitor) body.monitor = monitor;
      try {
        const task = await api<Task>('POST', '/tasks', body);
        form.reset();
        sessionStorage.removeItem(DRAFT_KEY);
        syncCrontab();
        syncMonitor();
        notice(`Task “${task.name}” was created.`);
        await showTasks();
      } catch (err) {
        if (err instanceof ApiError && err.code === 'session_expired') return;
        if (err instanceof ApiError) showProblems(FORM, err.message, err.details);
        else report(err);
      }
    });
  });
}

function report(err: unknown): void {
  if (err instanceof ApiError && err.code === 'session_expired') return;
  notice((err as Error).message, 'error');
}
