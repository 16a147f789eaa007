import { parse } from 'node-html-parser';
import { ignoredTextRegExp } from './linear-regexp.js';

/** Elements whose content is never page text. */
const NOT_TEXT = 'script, style, noscript, template, head';

export interface TextOptions {
  selector?: string | undefined;
  ignoreSelectors: readonly string[];
  ignoreText: readonly string[];
}

/** Lines without surrounding or repeated whitespace; empty lines dropped. */
const normalise = (text: string): string =>
  text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');

/**
 * The text a text-mode monitor compares: the page's (or `selector`'s) visible text, one line per block,
 * with `ignoreSelectors` removed and the matches of `ignoreText` stripped (in the linear-time engine). An HTML result is parsed
 * (node-html-parser); a Markdown result is its own text. A selector that matches nothing gives ''.
 */
export function comparedText(result: string, format: 'html' | 'md', opts: TextOptions): string {
  let text: string;
  if (format === 'md') text = result;
  else {
    const root = parse(result, { blockTextElements: { pre: true } });
    const scope = opts.selector ? root.querySelector(opts.selector) : (root.querySelector('body') ?? root);
    if (!scope) return '';
    for (const node of scope.querySelectorAll([NOT_TEXT, ...opts.ignoreSelectors].join(', '))) node.remove();
    text = scope.structuredText;
  }
  for (const pattern of opts.ignoreText) text = text.replace(ignoredTextRegExp(pattern), '');
  return normalise(text);
}
