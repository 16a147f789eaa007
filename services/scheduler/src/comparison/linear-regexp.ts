import { setFlagsFromString } from 'node:v8';

/**
 * `ignore_text` patterns run in V8's linear-time (non-backtracking) regular expression engine: the `l`
 * flag, behind `--enable-experimental-regexp-engine`. Its matching time grows with the text's length
 * times the pattern's size, whatever the pattern, so no pattern can backtrack catastrophically. V8 flags
 * are the process's (every thread's); setting this one only makes the `l` flag known.
 *
 * What the engine runs (Node 20's V8): no backreferences, no lookahead or lookbehind, counted repetitions
 * up to 16 (`\d{1,16}`, not `\d{20}`), and neither the `u` nor the `i` flag: a pattern is matched against
 * the text's UTF-16 code units, as JavaScript does without `u`.
 */
setFlagsFromString('--enable-experimental-regexp-engine');

/** Flags of an ignore_text pattern: every match, in the linear-time engine. */
const LINEAR_FLAGS = 'gl';
export const MAX_PATTERN_LENGTH = 1_000;

/** Syntax that means something else without the `u` flag (`\p{L}` would match the letters `p{L}`). */
const UNICODE_ONLY = /\\[pPu]\{/;

/** Why `pattern` is not an accepted ignore_text pattern; undefined when it is. */
export function linearPatternProblem(pattern: string): string | undefined {
  if (pattern === '') return 'must not be empty';
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  try {
    // The JavaScript syntax as it is with `u` (stricter: `a{` or `\-` outside a class are mistakes there).
    new RegExp(pattern, 'u');
  } catch {
    return 'is not a valid regular expression';
  }
  if (UNICODE_ONLY.test(pattern.replace(/\\\\/g, ''))) {
    return 'uses \\p{…}, \\P{…} or \\u{…}, which the linear-time engine does not run; list the characters instead';
  }
  try {
    new RegExp(pattern, LINEAR_FLAGS);
  } catch {
    return (
      'cannot run in the linear-time engine: backreferences, lookahead, lookbehind and counted repetitions ' +
      'above 16 are not supported; simplify it'
    );
  }
  return undefined;
}

/**
 * The pattern as it runs: in the linear-time engine, or (a pattern saved before that engine was used, which
 * it cannot run) in the backtracking engine as it was saved, where only the comparison's deadline bounds it.
 */
export function ignoredTextRegExp(pattern: string): RegExp {
  try {
    if (!UNICODE_ONLY.test(pattern.replace(/\\\\/g, ''))) return new RegExp(pattern, LINEAR_FLAGS);
  } catch {
    // not runnable in the linear-time engine: below
  }
  return new RegExp(pattern, 'gu');
}
