import type { Comparison, Monitor } from '../domain/monitor/monitor.js';
import { compareImages } from './visual-diff.js';
import { compareTexts } from './text-diff.js';
import { comparedText } from './text-extract.js';

/** What a run's result becomes before it is compared, and is kept as (the "before" and "after" files). */
export interface ComparedResult {
  body: Uint8Array;
  extension: string;
  contentType: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A run's result as the monitor compares it: visual mode compares the screenshot as rendered (its masking
 * and clipping were done by the render), text mode the page's text (extracted, filtered).
 */
export function comparedResult(monitor: Monitor, result: Uint8Array, meta: { extension: string; contentType: string }): ComparedResult {
  if (monitor.mode === 'visual') return { body: result, extension: meta.extension, contentType: meta.contentType };
  const format = meta.extension === 'md' ? 'md' : 'html';
  const text = comparedText(decoder.decode(result), format, monitor);
  return { body: encoder.encode(text), extension: 'txt', contentType: 'text/plain; charset=utf-8' };
}

export async function compareResults(monitor: Monitor, before: Uint8Array, after: Uint8Array, labels: { before: string; after: string }): Promise<Comparison> {
  if (monitor.mode === 'visual') return compareImages(before, after);
  return compareTexts(decoder.decode(before), decoder.decode(after), labels, { trigger: monitor.trigger, keywords: monitor.keywords });
}
