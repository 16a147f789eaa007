import { api, ApiError } from './api.js';
import { $, busy, clearProblems, formatTime, h, notice, showProblems } from './dom.js';
import { session } from './session.js';
import { bindMonitorFields, editedMonitorOf, fillMonitorFields, monitorFieldOf, monitorOf } from './monitor-form.js';
import { stepEditor, type StepEditor } from './step-editor.js';
import { splitSteps, withSteps } from './task-query-steps.js';
import { showChanges } from './task-changes.js';
import { bindTimeline, showMonitorDetail, type TimelineTask } from './task-timeline.js';

/** A task as /dashboard/api/tasks returns it (the fields this page shows). */
type Task = {
  id: number;
  name: string;
  api: string;
  query: string;
  frequency: string;
  crontab: string;
  timezone: string;
  enabled: boolean;
  runs: number;
  last_run: number | null;
  keep_session: boolean;
  monitor?: TimelineTask['monitor'];
};

type Run = Parameters<typeof showMonitorDetail>[1][number] & { finished: number | null; file: string | null };

const FORM = {
  prefix: 'task-',
  errorId: 'task-form-error',
  fieldOf: (p: string) => (p.startsWith('query.steps') ? 'steps' : p.startsWith('query.') ? 'query' : (monitorFieldOf(p) ?? p)),
};
const DRAFT_KEY = 'dashboard.task-draft';
const FIELDS = ['name', 'api', 'query', 'frequency', 'crontab', 'timezone'] as const;
let openRunsOf: Task | undefined;
let steps: StepEditor | undefined;
/** The task the form edits (none: the form creates one), and whether its monitor fields were touched. */
let editing: { task: Task; monitorTouched: boolean } | undefined;

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
  const edit = h('button', { type: 'button', class: 'small', 'aria-label': `Edit ${t.name}` }, 'Edit');
  edit.addEventListener('click', () => editTask(t));
  const remove = h('button', { type: 'button', class: 'small', 'aria-label': `Delete ${t.name}` }, 'Delete');
  remove.addEventListener('click', () => {
    if (!confirm(`Delete the task “${t.name}”? It stops at once.`)) return;
    void busy(remove, async () => {
      await api('DELETE', `/tasks/${t.id}`);
      if (openRunsOf?.id === t.id) $('task-runs').hidden = true;
      if (editing?.task.id === t.id) endEditing();
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
    h('td', { class: 'row-actions' }, h('div', { class: 'actions' }, history, runNow, edit, ...(t.monitor ? [changes] : []), remove)),
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
  if (editing) return; // the draft is a new task's
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
  steps = stepEditor($('task-steps'), 'task-step');
  restoreDraft();
  syncCrontab();
  const syncMonitor = bindMonitorFields();
  bindTimeline(report);
  frequency.addEventListener('change', syncCrontab);
  // What is typed survives a reload or an expired session (nothing secret is in this form).
  form.addEventListener('input', saveDraft);
  const touchMonitor = () => void (editing && (editing.monitorTouched = true));
  $('task-monitor-fieldset').addEventListener('input', touchMonitor);
  $('task-monitor-fieldset').addEventListener('change', touchMonitor);
  $('task-edit-cancel').addEventListener('click', () => {
    endEditing();
    $('task-form-title').focus();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const submit = $<HTMLButtonElement>('task-submit');
    void busy(submit, async () => {
      clearProblems(FORM);
      const operation = input('api').value;
      const body: Record<string, unknown> = {
        name: input('name').value,
        api: operation,
        query: withSteps(input('query').value, steps!.steps()),
        frequency: frequency.value,
        timezone: input('timezone').value,
        enabled: $<HTMLInputElement>('task-enabled').checked,
        keep_session: $<HTMLInputElement>('task-keep_session').checked,
      };
      const edited = editing;
      if (frequency.value === 'custom') body.crontab = input('crontab').value;
      else if (edited) body.crontab = null;
      if (!edited) {
        const monitor = monitorOf(operation);
        if (monitor) body.monitor = monitor;
      } else if (edited.monitorTouched) {
        body.monitor = editedMonitorOf(operation, edited.task.monitor as Record<string, unknown> | null | undefined);
      }
      try {
        const task = edited ? await api<Task>('PATCH', `/tasks/${edited.task.id}`, body) : await api<Task>('POST', '/tasks', body);
        // The list shows the task as saved before the form lets it go: a row clicked from then on is not
        // one about to be replaced (which took the click away, or opened the task as it was).
        await showTasks().catch(report);
        if (edited) endEditing();
        else {
          form.reset();
          steps!.set([]);
          sessionStorage.removeItem(DRAFT_KEY);
          syncCrontab();
          syncMonitor();
        }
        notice(`Task “${task.name}” was ${edited ? 'saved' : 'created'}.`);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'session_expired') return;
        if (err instanceof ApiError) showProblems(FORM, err.message, err.details);
        else report(err);
      }
    });
  });
}

function syncCrontab(): void {
  $('task-crontab-field').hidden = input('frequency').value !== 'custom';
}

/** Opens a task in the form: its fields, its steps in the step editor (out of its query), keep_session. */
function editTask(t: Task): void {
  clearProblems(FORM);
  editing = { task: t, monitorTouched: false };
  const { rest, steps: taskSteps } = splitSteps(t.query);
  input('name').value = t.name;
  input('api').value = t.api;
  input('query').value = rest;
  input('frequency').value = t.frequency;
  input('crontab').value = t.frequency === 'custom' ? t.crontab : '';
  input('timezone').value = t.timezone;
  $<HTMLInputElement>('task-enabled').checked = t.enabled;
  $<HTMLInputElement>('task-keep_session').checked = t.keep_session === true;
  steps!.set(taskSteps);
  fillMonitorFields(t.monitor as Record<string, unknown> | null | undefined);
  $('task-monitor-on').dispatchEvent(new Event('change'));
  syncCrontab();
  $('task-form-title').textContent = `Edit “${t.name}”`;
  $('task-submit').textContent = 'Save changes';
  $('task-edit-cancel').hidden = false;
  $('task-form').scrollIntoView({ block: 'start' });
  input('name').focus();
}

/** Back to a new task's form (the draft kept of one, if any). */
function endEditing(): void {
  editing = undefined;
  $<HTMLFormElement>('task-form').reset();
  steps?.set([]);
  clearProblems(FORM);
  restoreDraft();
  $('task-monitor-on').dispatchEvent(new Event('change'));
  syncCrontab();
  $('task-form-title').textContent = 'New task';
  $('task-submit').textContent = 'Create task';
  $('task-edit-cancel').hidden = true;
}

function report(err: unknown): void {
  if (err instanceof ApiError && err.code === 'session_expired') return;
  notice((err as Error).message, 'error');
}
