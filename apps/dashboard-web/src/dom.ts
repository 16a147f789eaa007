/** Small DOM helpers: no framework, text always set as text (never as HTML). */

export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return el as T;
}

type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

export const text = (id: string, value: string | number) => void ($(id).textContent = String(value));

export function formatTime(unixSeconds: number | null | undefined): string {
  if (!unixSeconds) return '–';
  return new Date(unixSeconds * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export const formatNumber = (n: number) => n.toLocaleString();

export function notice(message: string, kind: 'info' | 'error' = 'info'): void {
  const el = $('notice');
  el.textContent = message;
  el.classList.toggle('error', kind === 'error');
}

/** Shows a form's problems beside its fields (`<prefix><parameter>-error`), the rest in the form's error line. */
export function showProblems(
  form: { prefix: string; errorId: string; fieldOf?: (parameter: string) => string | undefined },
  message: string,
  details: { parameter: string; message: string }[],
): void {
  clearProblems(form);
  const unplaced: string[] = [];
  for (const d of details) {
    const field = form.fieldOf ? form.fieldOf(d.parameter) : d.parameter;
    const slot = field ? document.getElementById(`${form.prefix}${field}-error`) : null;
    if (!slot) {
      unplaced.push(`${d.parameter}: ${d.message}`);
      continue;
    }
    slot.textContent = slot.textContent ? `${slot.textContent} ${d.message}` : d.message;
    document.getElementById(`${form.prefix}${field}`)?.setAttribute('aria-invalid', 'true');
  }
  $(form.errorId).textContent = details.length === 0 ? message : unplaced.length > 0 ? unplaced.join(' · ') : 'Please correct the fields marked below.';
  const first = document.querySelector<HTMLElement>(`[id^="${form.prefix}"][aria-invalid="true"]`);
  first?.focus();
}

export function clearProblems(form: { prefix: string; errorId: string }): void {
  $(form.errorId).textContent = '';
  document.querySelectorAll<HTMLElement>(`[id^="${form.prefix}"][id$="-error"]`).forEach((el) => (el.textContent = ''));
  document.querySelectorAll<HTMLElement>(`[id^="${form.prefix}"][aria-invalid]`).forEach((el) => el.removeAttribute('aria-invalid'));
}

/** Copies text; where the clipboard is refused, selects it in `fallback` so the user can copy it. */
export async function copy(value: string, fallback?: HTMLTextAreaElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(value);
    return true;
  } catch {
    if (fallback) {
      fallback.hidden = false;
      fallback.value = value;
      fallback.select();
    }
    return false;
  }
}

/** Runs an action with its button disabled (no double submit). */
export async function busy<T>(button: HTMLButtonElement, action: () => Promise<T>): Promise<T> {
  button.disabled = true;
  try {
    return await action();
  } finally {
    button.disabled = false;
  }
}
