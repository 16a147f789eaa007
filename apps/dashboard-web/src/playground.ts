import { api, ApiError, errorOf } from './api.js';
import { $, busy, clearProblems, copy, h, notice, showProblems } from './dom.js';
import { session } from './session.js';
import { stepEditor, type StepEditor } from './step-editor.js';

/** Each operation's output formats, as the API validates them (asked of the service once). */
let formats: Record<string, string[]> = {};
const FORM = {
  prefix: 'pg-',
  errorId: 'pg-error',
  fieldOf: (p: string) => (p.startsWith('steps') ? 'steps' : document.getElementById(`pg-${p}`) ? p : 'extra'),
};
let steps: StepEditor | undefined;
let lastObjectUrl: string | undefined;

const value = (id: string) => $<HTMLInputElement>(id).value.trim();

/** The request's parameters, in a stable order: the fields, then "name=value" lines. */
function parameters(): [string, string][] {
  const operation = value('pg-operation');
  const params: [string, string][] = [];
  if (value('pg-url')) params.push(['url', value('pg-url')]);
  if (operation !== 'pdf') params.push(['format', value('pg-format')]);
  for (const name of ['viewport_width', 'viewport_height']) if (value(`pg-${name}`)) params.push([name, value(`pg-${name}`)]);
  if (operation === 'screenshot' && $<HTMLInputElement>('pg-full_page').checked) params.push(['full_page', 'true']);
  // Fields shown for some operations only (data-operations) are sent only for those.
  for (const name of ['full_page_max_height', 'selector', 'wait_for_selector', 'styles', 'scripts']) {
    if (value(`pg-${name}`) && shownFor(name, operation)) params.push([name, value(`pg-${name}`)]);
  }
  // PDF layout and honest failures: one value each, and one string a line for the content checks.
  for (const name of PDF_AND_FAILURE_FIELDS) {
    if (value(`pg-${name}`) && shownFor(name, operation)) params.push([name, value(`pg-${name}`)]);
  }
  for (const name of LINE_LISTS) {
    for (const line of $<HTMLTextAreaElement>(`pg-${name}`).value.split('\n')) if (line.trim()) params.push([name, line.trim()]);
  }
  // Steps travel as JSON: an array in a POST body, a JSON string in a GET link.
  const edited = steps?.steps() ?? [];
  if (edited.length > 0) params.push(['steps', JSON.stringify(edited)]);
  for (const line of $<HTMLTextAreaElement>('pg-extra').value.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const i = trimmed.indexOf('=');
    params.push(i < 0 ? [trimmed, ''] : [trimmed.slice(0, i).trim(), trimmed.slice(i + 1).trim()]);
  }
  return params;
}

/** Whether the field of a parameter is shown for the operation (its data-operations lists them; none: all). */
function shownFor(name: string, operation: string): boolean {
  const operations = $(`pg-${name}`).closest<HTMLElement>('.field')!.dataset.operations;
  return operations === undefined || operations.split(' ').includes(operation);
}

/** Parameters that are text whatever they look like (a script may be `1`). */
const TEXT_PARAMETERS: ReadonlySet<string> = new Set([
  'selector',
  'wait_for_selector',
  'styles',
  'scripts',
  'pdf_header',
  'pdf_footer',
  'pdf_page_ranges',
  'fail_if_content_contains',
  'fail_if_content_missing',
]);
const PDF_AND_FAILURE_FIELDS = ['pdf_margin', 'pdf_scale', 'pdf_page_ranges', 'pdf_width', 'pdf_height', 'pdf_header', 'pdf_footer', 'fail_on_status'];
/** Lists given one item a line, sent as a JSON array (repeated in a GET link). */
const LINE_LISTS: ReadonlySet<string> = new Set(['fail_if_content_contains', 'fail_if_content_missing']);

/** JSON body: numbers and booleans typed as the API documents them. */
function jsonBody(params: [string, string][]): string {
  const body: Record<string, unknown> = {};
  for (const [k, v] of params) {
    if (k === 'steps') {
      body[k] = JSON.parse(v) as unknown;
      continue;
    }
    const typed = TEXT_PARAMETERS.has(k) ? v : v === 'true' ? true : v === 'false' ? false : /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
    body[k] = LINE_LISTS.has(k) ? [...((body[k] as unknown[] | undefined) ?? []), typed] : typed;
  }
  return JSON.stringify(body);
}

const signatureOf = async (payload: string) => (await api<{ signature: string }>('POST', '/sign', { payload })).signature;
const apiUrl = (operation: string) => `${location.origin}/v1/${operation}`;
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

async function render(): Promise<void> {
  clearProblems(FORM);
  const operation = value('pg-operation');
  const body = jsonBody(parameters());
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-access-key': session().access_key };
  if (session().account.signature_required) headers['x-signature'] = await signatureOf(body);
  const started = performance.now();
  const res = await fetch(apiUrl(operation), { method: 'POST', headers, body, credentials: 'omit', cache: 'no-store' });
  if (!res.ok) {
    const err = await errorOf(res);
    showProblems(FORM, err.retryAfter ? `${err.message} Retry in ${err.retryAfter} s.` : err.message, err.details);
    return;
  }
  const blob = await res.blob();
  const type = res.headers.get('content-type') ?? blob.type;
  const ms = Math.round(performance.now() - started);
  if (lastObjectUrl) URL.revokeObjectURL(lastObjectUrl);
  lastObjectUrl = URL.createObjectURL(blob);
  let output: HTMLElement;
  if (type.startsWith('image/')) output = h('img', { src: lastObjectUrl, alt: `Screenshot of ${value('pg-url') || 'the page'}`, id: 'pg-image' });
  else if (type.startsWith('application/pdf')) output = h('iframe', { src: lastObjectUrl, title: 'PDF result' });
  else output = h('pre', {}, await blob.text());
  $('pg-meta').textContent = `${res.status} · ${type} · ${Math.round(blob.size / 102.4) / 10} KB · ${ms} ms · request id ${res.headers.get('x-service-request-id') ?? '–'}`;
  $('pg-output').replaceChildren(output, h('p', {}, h('a', { href: lastObjectUrl, download: `result` }, 'Download')));
  $('pg-result').hidden = false;
  $('pg-result').focus();
}

async function curl(): Promise<string> {
  const operation = value('pg-operation');
  const body = jsonBody(parameters());
  const lines = [`curl -X POST ${shellQuote(apiUrl(operation))}`, `-H ${shellQuote(`X-Access-Key: ${session().access_key}`)}`, `-H 'Content-Type: application/json'`];
  if (session().account.signature_required) lines.push(`-H ${shellQuote(`X-Signature: ${await signatureOf(body)}`)}`);
  lines.push(`-d ${shellQuote(body)}`, `-o result.${operation === 'pdf' ? 'pdf' : value('pg-format')}`);
  return lines.join(' \\\n  ');
}

/** A GET link with access_key, the parameters and a signature over the query string as sent. */
async function signedLink(): Promise<string> {
  const query = new URLSearchParams([['access_key', session().access_key], ...parameters()]).toString();
  return `${apiUrl(value('pg-operation'))}?${query}&signature=${await signatureOf(query)}`;
}

function syncFormats(): void {
  const operation = value('pg-operation');
  $('pg-format').replaceChildren(...(formats[operation] ?? []).map((f) => h('option', {}, f)));
  $<HTMLSelectElement>('pg-format').disabled = operation === 'pdf';
  $('pg-full_page').closest('.field')!.toggleAttribute('hidden', operation !== 'screenshot');
  for (const field of document.querySelectorAll<HTMLElement>('#pg-form .field[data-operations]')) {
    field.toggleAttribute('hidden', !field.dataset.operations!.split(' ').includes(operation));
  }
}

export function bindPlayground(): void {
  steps = stepEditor($('pg-steps'), 'pg-step');
  syncFormats();
  void api<{ formats: Record<string, string[]> }>('GET', '/formats')
    .then((answer) => {
      formats = answer.formats;
      syncFormats();
    })
    .catch(report);
  $('pg-operation').addEventListener('change', syncFormats);
  const form = $<HTMLFormElement>('pg-form');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy($<HTMLButtonElement>('pg-render'), render).catch(report);
  });
  const snippet = $<HTMLTextAreaElement>('pg-snippet');
  const offer = async (make: () => Promise<string>, what: string) => {
    const text = await make();
    snippet.value = text;
    snippet.hidden = false;
    notice((await copy(text)) ? `${what} was copied to the clipboard.` : `${what} is below: select it and copy it.`);
  };
  $('pg-curl').addEventListener('click', () => void offer(curl, 'The curl command').catch(report));
  $('pg-link').addEventListener('click', () => void offer(signedLink, 'The signed link').catch(report));
}

function report(err: unknown): void {
  if (err instanceof ApiError && err.code === 'session_expired') return;
  notice((err as Error).message, 'error');
}
