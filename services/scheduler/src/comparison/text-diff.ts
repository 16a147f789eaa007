import { diffChars, formatPatch, structuredPatch, type StructuredPatch } from 'diff';
import type { Comparison, Trigger } from '../domain/monitor/monitor.js';

/** Which changes count (text mode): only added or removed lines; only when a keyword appears or disappears. */
export interface TextRules {
  trigger?: Trigger | undefined;
  keywords?: readonly string[] | undefined;
}

const occurrences = (text: string, keyword: string): number => {
  const k = keyword.toLocaleLowerCase();
  let n = 0;
  for (let i = text.indexOf(k); i !== -1; i = text.indexOf(k, i + k.length)) n++;
  return n;
};

/** The keywords that appeared (more often in the new text) and disappeared (less often), case-insensitively. */
export function keywordChanges(before: string, after: string, keywords: readonly string[]): { appeared: string[]; disappeared: string[] } {
  const [b, a] = [before.toLocaleLowerCase(), after.toLocaleLowerCase()];
  const appeared: string[] = [];
  const disappeared: string[] = [];
  for (const k of keywords) {
    const [nb, na] = [occurrences(b, k), occurrences(a, k)];
    if (na > nb) appeared.push(k);
    else if (na < nb) disappeared.push(k);
  }
  return { appeared, disappeared };
}

/**
 * Lines added plus lines removed that are compared line by line, at most: Myers' diff costs about the
 * square of this (1,000 edits: about half a second on a slow core; 40,000, a reshuffled 20,000-line page,
 * would take minutes). Beyond it, or after LINE_DIFF_TIMEOUT_MS, the text between the first and the last
 * differing line counts as changed as a whole.
 */
export const MAX_LINE_EDITS = 1_000;
const LINE_DIFF_TIMEOUT_MS = 3_000;
/** Beyond this much editing in one changed block its characters count as whole changed lines. */
const MAX_CHAR_EDITS = 5_000;
/** Time given to counting changed characters, over all blocks; the rest count as whole lines. */
const CHAR_DIFF_BUDGET_MS = 1_000;
const CONTEXT = 3;
const QUOTE_LENGTH = 120;

const quote = (line: string) => (line.length > QUOTE_LENGTH ? `${line.slice(0, QUOTE_LENGTH - 1)}…` : line);
const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
const plural = (n: number) => (n === 1 ? 'line' : 'lines');

/**
 * The patch that replaces every line between the first and the last differing line of the two texts
 * (found in one pass from each end): what is left when the line diff gave up.
 */
function wholeTextPatch(before: string, after: string, labels: { before: string; after: string }): StructuredPatch {
  const old = before.slice(0, -1).split('\n');
  const next = after.slice(0, -1).split('\n');
  let head = 0;
  while (head < old.length && head < next.length && old[head] === next[head]) head++;
  let tail = 0;
  while (tail < old.length - head && tail < next.length - head && old[old.length - 1 - tail] === next[next.length - 1 - tail]) tail++;
  const lead = Math.min(CONTEXT, head);
  const trail = Math.min(CONTEXT, tail);
  const removed = old.slice(head, old.length - tail);
  const added = next.slice(head, next.length - tail);
  const lines = [
    ...old.slice(head - lead, head).map((l) => ` ${l}`),
    ...removed.map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
    ...old.slice(old.length - tail, old.length - tail + trail).map((l) => ` ${l}`),
  ];
  const start = head - lead + 1;
  return {
    oldFileName: labels.before,
    newFileName: labels.after,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [{ oldStart: start, oldLines: lead + removed.length + trail, newStart: start, newLines: lead + added.length + trail, lines }],
  };
}

/** A run of removed and added lines between unchanged ones. */
interface Block {
  removed: string[];
  added: string[];
}

function blocksOf(patch: StructuredPatch): Block[] {
  const blocks: Block[] = [];
  for (const hunk of patch.hunks) {
    let block: Block | undefined;
    for (const line of hunk.lines) {
      if (line.startsWith('-') || line.startsWith('+')) {
        block ??= { removed: [], added: [] };
        (line.startsWith('-') ? block.removed : block.added).push(line.slice(1));
      } else if (block) {
        blocks.push(block);
        block = undefined;
      }
    }
    if (block) blocks.push(block);
  }
  return blocks;
}

const linesText = (lines: string[]) => lines.map((l) => `${l}\n`).join('');

/** Changed characters of a block (jsdiff's character diff, bounded), or its whole lines beyond the bounds. */
function changedChars(block: Block, deadline: number, exact: boolean): number {
  const removed = linesText(block.removed);
  const added = linesText(block.added);
  const remaining = deadline - Date.now();
  if (!exact || remaining <= 0 || removed === '' || added === '') return removed.length + added.length;
  const parts = diffChars(removed, added, { maxEditLength: MAX_CHAR_EDITS, timeout: remaining });
  if (!parts) return removed.length + added.length;
  return parts.filter((c) => c.added || c.removed).reduce((n, c) => n + c.value.length, 0);
}

/**
 * Compares two texts line by line (jsdiff): the score is the number of changed characters, the diff file
 * a unified diff, the summary counts the lines added and removed and quotes the first change. Bounded: a
 * comparison with more than MAX_LINE_EDITS changed lines (or one that runs out of time) takes every line
 * from the first difference to the last as removed and added, and says so in its summary.
 */
export function compareTexts(before: string, after: string, labels: { before: string; after: string }, rules: TextRules = {}): Comparison {
  if (before === after) return { score: 0, summary: 'The text is the same.', boxes: [] };
  const [b, a] = [withNewline(before), withNewline(after)];
  const lineDiff = structuredPatch(labels.before, labels.after, b, a, undefined, undefined, {
    context: CONTEXT,
    maxEditLength: MAX_LINE_EDITS,
    timeout: LINE_DIFF_TIMEOUT_MS,
  });
  const patch = lineDiff ?? wholeTextPatch(b, a, labels);
  const blocks = blocksOf(patch);
  const deadline = Date.now() + CHAR_DIFF_BUDGET_MS;
  let added = 0;
  let removed = 0;
  let score = 0;
  for (const block of blocks) {
    added += block.added.filter((l) => l !== '').length;
    removed += block.removed.filter((l) => l !== '').length;
    score += changedChars(block, deadline, lineDiff !== undefined);
  }
  const firstBlock = blocks[0] ?? { removed: [], added: [] };
  const firstRemoved = firstBlock.removed.find((l) => l !== '');
  const first = firstRemoved !== undefined ? `- ${firstRemoved}` : `+ ${firstBlock.added.find((l) => l !== '') ?? ''}`;
  const counts = `${added} ${plural(added)} added, ${removed} ${plural(removed)} removed`;
  const scope = lineDiff ? '' : ` (more than ${MAX_LINE_EDITS} lines differ: every line from the first change to the last counts as changed)`;
  let summary = `${counts}${scope}; first change: "${quote(first)}"`;
  // trigger: only the added (or only the removed) lines' characters count.
  if (rules.trigger === 'added' || rules.trigger === 'removed') {
    const side = rules.trigger;
    score = blocks.reduce((n, block) => n + linesText(block[side].filter((l) => l !== '')).length, 0);
    if (score === 0) summary += `; no line was ${side} (trigger ${side}): not counted`;
  }
  const keywords = rules.keywords ?? [];
  if (keywords.length > 0 && score > 0) {
    const { appeared, disappeared } = keywordChanges(before, after, keywords);
    const relevant = rules.trigger === 'added' ? appeared : rules.trigger === 'removed' ? disappeared : [...appeared, ...disappeared];
    if (relevant.length === 0) {
      score = 0;
      summary += '; no keyword appeared or disappeared: not counted';
    } else {
      const said = [appeared.length > 0 ? `appeared: ${appeared.map((k) => `"${k}"`).join(', ')}` : '', disappeared.length > 0 ? `disappeared: ${disappeared.map((k) => `"${k}"`).join(', ')}` : ''];
      summary += `; keywords ${said.filter(Boolean).join('; ')}`;
    }
  }
  return {
    score,
    summary,
    boxes: [],
    diff: { body: new TextEncoder().encode(formatPatch(patch)), extension: 'diff', contentType: 'text/x-diff; charset=utf-8' },
  };
}
