import type { z } from 'zod';
import { FORMAT_BY_OPERATION, OPERATIONS, canonicalFormat, type Operation } from './parameters.js';

/** The media type of each output format a render may have. */
export const CONTENT_TYPE_BY_FORMAT: Readonly<Record<string, string>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  pdf: 'application/pdf',
  html: 'text/html',
  md: 'text/markdown',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  avi: 'video/x-msvideo',
};

/**
 * The output formats of an operation, by their one name (`jpg` is `jpeg`), its default first; an
 * operation without a `format` parameter renders its own (pdf).
 */
export function resultFormatsOf(operation: Operation): string[] {
  const byOperation = FORMAT_BY_OPERATION[operation];
  if (!byOperation) return [operation];
  const named = (byOperation.schema as z.ZodEnum).options.map((f) => canonicalFormat(String(f)));
  return [...new Set([byOperation.default, ...named])];
}

/** Every operation's output formats (see `resultFormatsOf`). */
export const RESULT_FORMATS = Object.fromEntries(OPERATIONS.map((op) => [op, resultFormatsOf(op)])) as Record<Operation, string[]>;
