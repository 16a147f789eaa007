import { h } from './dom.js';

/** Each action's fields, as the API takes them (docs/api.md, Browser steps). */
const ACTIONS: Readonly<Record<string, readonly string[]>> = {
  goto: ['url'],
  click: ['selector'],
  type: ['selector', 'text', 'secret'],
  press: ['key'],
  select: ['selector', 'value'],
  check: ['selector'],
  hover: ['selector'],
  scroll_to: ['selector'],
  wait_for_selector: ['selector'],
  wait: ['ms'],
};
const LABELS: Readonly<Record<string, string>> = {
  url: 'Address',
  selector: 'Element (CSS selector)',
  text: 'Text',
  secret: 'or secret name',
  key: 'Key',
  value: 'Option value',
  ms: 'Milliseconds',
};
const PLACEHOLDERS: Readonly<Record<string, string>> = {
  url: 'https://example.com/login',
  selector: '#password',
  text: 'ann',
  secret: 'shop.password',
  key: 'Enter',
  value: 'eur',
  ms: '1000',
};

export type Step = Record<string, string | number | boolean>;

export interface StepEditor {
  /** The steps as the API takes them (empty fields left out, `ms` a number). */
  steps(): Step[];
  set(steps: Step[]): void;
}

/**
 * A list of browser steps to edit: add, remove and move steps, an action each with the fields of that
 * action, and `optional` for the actions on an element. `prefix` names its controls (`<prefix>-<i>-<field>`).
 */
export function stepEditor(root: HTMLElement, prefix: string): StepEditor {
  let steps: Step[] = [];
  const list = h('ol', { class: 'steps', id: `${prefix}-list` });
  const add = h('button', { type: 'button', id: `${prefix}-add` }, 'Add a step');
  root.replaceChildren(list, add);

  const draw = (focus?: string) => {
    list.replaceChildren(...steps.map((step, i) => row(step, i)));
    if (focus) document.getElementById(focus)?.focus();
  };

  const row = (step: Step, i: number): HTMLElement => {
    const action = String(step.action ?? 'click');
    const id = (field: string) => `${prefix}-${i}-${field}`;
    const select = h('select', { id: id('action'), 'aria-label': `Step ${i + 1} action` }, ...Object.keys(ACTIONS).map((a) => h('option', { value: a, selected: a === action }, a)));
    select.addEventListener('change', () => {
      // Fields the new action shares (a selector) are kept; the others are dropped.
      const next: Step = { action: select.value };
      for (const f of ACTIONS[select.value] ?? []) if (step[f] !== undefined) next[f] = step[f]!;
      if (step.optional && (ACTIONS[select.value] ?? []).includes('selector')) next.optional = true;
      steps[i] = next;
      draw(id('action'));
    });
    const fields = (ACTIONS[action] ?? []).map((field) => {
      const input = h('input', {
        id: id(field),
        spellcheck: 'false',
        placeholder: PLACEHOLDERS[field],
        value: step[field] === undefined ? '' : String(step[field]),
        inputmode: field === 'ms' ? 'numeric' : undefined,
        type: field === 'url' ? 'url' : 'text',
      });
      input.addEventListener('input', () => {
        const v = input.value;
        if (v === '') delete step[field];
        else step[field] = field === 'ms' && /^\d+$/.test(v) ? Number(v) : v;
      });
      return h('div', { class: 'step-field' }, h('label', { for: id(field) }, LABELS[field] ?? field), input);
    });
    const onElement = (ACTIONS[action] ?? []).includes('selector');
    const optional = h('input', { type: 'checkbox', id: id('optional'), checked: step.optional === true });
    optional.addEventListener('change', () => {
      if (optional.checked) step.optional = true;
      else delete step.optional;
    });
    const move = (to: number, label: string, focus: string) => {
      const b = h('button', { type: 'button', id: id(focus), disabled: to < 0 || to >= steps.length, 'aria-label': `${label} step ${i + 1}` }, label);
      b.addEventListener('click', () => {
        [steps[i], steps[to]] = [steps[to]!, steps[i]!];
        draw(`${prefix}-${to}-${focus}`);
      });
      return b;
    };
    const remove = h('button', { type: 'button', id: id('remove'), 'aria-label': `Remove step ${i + 1}` }, 'Remove');
    remove.addEventListener('click', () => {
      steps.splice(i, 1);
      draw(steps.length > 0 ? `${prefix}-${Math.min(i, steps.length - 1)}-action` : `${prefix}-add`);
    });
    return h(
      'li',
      { class: 'step', id: id('row') },
      h('div', { class: 'step-field' }, h('label', { for: id('action') }, `Step ${i + 1}`), select),
      ...fields,
      onElement ? h('label', { class: 'switch step-optional' }, optional, h('span', {}, 'Optional (skip when absent)')) : null,
      h('div', { class: 'step-buttons' }, move(i - 1, 'Up', 'up'), move(i + 1, 'Down', 'down'), remove),
    );
  };

  add.addEventListener('click', () => {
    steps.push({ action: 'click' });
    draw(`${prefix}-${steps.length - 1}-action`);
  });

  return {
    steps: () => steps.map((s) => ({ ...s })),
    set(next) {
      steps = next.map((s) => ({ ...s }));
      draw();
    },
  };
}
