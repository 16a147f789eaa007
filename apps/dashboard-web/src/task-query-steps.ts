import type { Step } from './step-editor.js';

/**
 * A task keeps its browser steps in its query, as `steps=<JSON, percent-encoded>` (docs/api.md, Browser
 * steps). The task form edits them in the step editor and the rest of the query as text: these split a
 * query into the two and put them back together, leaving every other parameter as it was written.
 */

const keyOf = (part: string) => {
  const raw = part.split('=', 1)[0]!;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
};

/** The query without its steps, and the steps (none when absent, or when they are not a JSON list: then they stay in the query). */
export function splitSteps(query: string): { rest: string; steps: Step[] } {
  const parts = query.split('&').filter((p) => p !== '');
  const at = parts.findIndex((p) => keyOf(p) === 'steps');
  if (at < 0) return { rest: query, steps: [] };
  const part = parts[at]!;
  try {
    const steps = JSON.parse(decodeURIComponent(part.slice(part.indexOf('=') + 1).replace(/\+/g, ' '))) as unknown;
    if (!Array.isArray(steps) || !steps.every((s) => typeof s === 'object' && s !== null && !Array.isArray(s))) return { rest: query, steps: [] };
    return { rest: parts.filter((_, i) => i !== at).join('&'), steps: steps as Step[] };
  } catch {
    return { rest: query, steps: [] };
  }
}

/**
 * The query with `steps` in it: the editor's steps replace any the query names; with none edited, the
 * query is sent as written (steps typed into it by hand stay).
 */
export function withSteps(query: string, steps: Step[]): string {
  if (steps.length === 0) return query;
  const rest = query
    .split('&')
    .filter((p) => p !== '' && keyOf(p) !== 'steps')
    .join('&');
  const encoded = `steps=${encodeURIComponent(JSON.stringify(steps))}`;
  return rest === '' ? encoded : `${rest}&${encoded}`;
}
