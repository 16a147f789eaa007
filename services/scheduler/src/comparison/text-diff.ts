import { createTwoFilesPatch, diffChars, diffLines } from 'diff';
import type { Comparison } from '../domain/monitor/monitor.js';

/** Beyond this much editing the character count falls back to whole changed lines (bounded cost). */
const MAX_EDIT_LENGTH = 5_000;
const QUOTE_LENGTH = 120;

const lineCount = (value: string) => value.split('\n').filter((l) => l !== '').length;
const quote = (line: string) => (line.length > QUOTE_LENGTH ? `${line.slice(0, QUOTE_LENGTH - 1)}…` : line);

/**
 * Compares two texts line by line (jsdiff): the score is the number of changed characters, the diff file
 * a unified diff, the summary counts the lines added and removed and quotes the first change.
 */
export function compareTexts(before: string, after: string, labels: { before: string; after: string }): Comparison {
  if (before === after) return { score: 0, summary: 'The text is the same.', boxes: [] };
  const parts = diffLines(before.endsWith('\n') ? before : `${before}\n`, after.endsWith('\n') ? after : `${after}\n`);
  let added = 0;
  let removed = 0;
  let first: string | undefined;
  let lineChars = 0;
  for (const part of parts) {
    if (!part.added && !part.removed) continue;
    const lines = lineCount(part.value);
    if (part.added) added += lines;
    else removed += lines;
    lineChars += part.value.length;
    first ??= `${part.added ? '+' : '-'} ${part.value.split('\n').find((l) => l !== '') ?? ''}`;
  }
  const chars = diffChars(before, after, { maxEditLength: MAX_EDIT_LENGTH });
  const score = chars ? chars.filter((c) => c.added || c.removed).reduce((n, c) => n + c.value.length, 0) : lineChars;
  const patch = createTwoFilesPatch(labels.before, labels.after, `${before}\n`, `${after}\n`, undefined, undefined, { context: 3 });
  const plural = (n: number) => (n === 1 ? 'line' : 'lines');
  const summary = `${added} ${plural(added)} added, ${removed} ${plural(removed)} removed; first change: "${quote(first ?? '')}"`;
  return {
    score,
    summary,
    boxes: [],
    diff: { body: new TextEncoder().encode(patch), extension: 'diff', contentType: 'text/x-diff; charset=utf-8' },
  };
}
