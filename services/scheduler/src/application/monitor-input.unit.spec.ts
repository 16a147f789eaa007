import { describe, expect, it } from 'vitest';
import type { ParameterProblem } from '@app/errors';
import { checkMonitor, patternProblem } from './monitor-input.js';

const check = (api: 'screenshot' | 'scrape' | 'pdf', input: Parameters<typeof checkMonitor>[1], format?: string) => {
  const problems: ParameterProblem[] = [];
  const monitor = checkMonitor(api, input, format, problems);
  return { monitor, problems: problems.map((p) => p.parameter) };
};

describe('checkMonitor', () => {
  it('should fill the defaults of a visual monitor', () => {
    expect(check('screenshot', { mode: 'visual' }).monitor).toEqual({ mode: 'visual', threshold: 0.1, ignoreSelectors: [], ignoreText: [], confirm: true });
  });

  it('should fill the defaults of a text monitor', () => {
    expect(check('scrape', { mode: 'text', confirm: false }).monitor).toMatchObject({ mode: 'text', threshold: 1, confirm: false });
  });

  it.each([
    ['a monitor on a pdf task', 'pdf', { mode: 'visual' }, 'monitor'],
    ['a visual monitor on a scrape task', 'scrape', { mode: 'visual' }, 'monitor.mode'],
    ['an unknown mode', 'screenshot', { mode: 'pixels' }, 'monitor.mode'],
    ['a threshold above 100 percent', 'screenshot', { mode: 'visual', threshold: 101 }, 'monitor.threshold'],
    ['a negative threshold', 'scrape', { mode: 'text', threshold: -1 }, 'monitor.threshold'],
    ['an invalid selector', 'screenshot', { mode: 'visual', selector: 'div[[' }, 'monitor.selector'],
    ['an invalid ignored selector', 'screenshot', { mode: 'visual', ignore_selectors: ['.ok', '>>'] }, 'monitor.ignore_selectors[1]'],
    ['a bad regular expression', 'scrape', { mode: 'text', ignore_text: ['(unclosed'] }, 'monitor.ignore_text[0]'],
    ['a pattern the linear-time engine cannot run', 'scrape', { mode: 'text', ignore_text: ['ok', '(a)\\1'] }, 'monitor.ignore_text[1]'],
    ['more than 20 patterns', 'scrape', { mode: 'text', ignore_text: Array.from({ length: 21 }, (_, i) => `p${i}`) }, 'monitor.ignore_text'],
    ['patterns in visual mode', 'screenshot', { mode: 'visual', ignore_text: ['x'] }, 'monitor.ignore_text'],
  ] as const)('should refuse %s, naming %s', (_what, api, input, parameter) => {
    const { monitor, problems } = check(api, input as Parameters<typeof checkMonitor>[1]);
    expect(monitor).toBeUndefined();
    expect(problems).toContain(parameter);
  });

  it('should refuse a selector on a Markdown scrape, which has no elements left', () => {
    expect(check('scrape', { mode: 'text', selector: 'table' }, 'md').problems).toEqual(['monitor.selector']);
  });
});

describe('patternProblem', () => {
  // Matched in V8's linear-time engine: no pattern can backtrack, so what was refused as catastrophic runs.
  it.each(['(a+)+$', '(x|x)*y', '^(\\w+\\s?)*$', '.*a.*b.*c', '\\d+x', '\\d{1,2}:\\d{2}(:\\d{2})?', 'Updated .* UTC', '[0-9]+ visitors'])(
    'should accept %s',
    (p) => {
      expect(patternProblem(p)).toBeUndefined();
    },
  );

  it.each([
    ['a backreference', '(a)\\1', /linear-time engine/],
    ['a lookahead', 'a(?=b)', /linear-time engine/],
    ['a lookbehind', '(?<=\\$)\\d+', /linear-time engine/],
    ['a counted repetition above 16', '\\d{20}', /linear-time engine/],
    ['the issue\'s undecidable pattern', '(?:(?:a|b)*c){1,500}d', /linear-time engine/],
    ['a Unicode property escape', '\\p{L}+', /\\p\{…\}/],
    ['an invalid pattern', '(unclosed', /not a valid regular expression/],
    ['an empty pattern', '', /must not be empty/],
  ])('should refuse %s, saying why', (_what, p, message) => {
    expect(patternProblem(p)).toMatch(message);
  });

  it('should accept an escaped backslash before p{ (a literal text, not a property escape)', () => {
    expect(patternProblem('\\\\p\\{x\\}')).toBeUndefined();
  });
});
