import { describe, expect, it } from 'vitest';
import { comparedText } from './text-extract.js';
import { compareTexts } from './text-diff.js';

const opts = { ignoreSelectors: [] as string[], ignoreText: [] as string[] };
const pricing = (pro: string, clock: string, banner: string) => `<!doctype html><html><head><title>Plans</title><style>td{color:red}</style></head><body>
  <div class="banner">${banner}</div>
  <p id="clock">Updated 2026-11-27 ${clock} UTC</p>
  <table id="prices"><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>$9</td></tr><tr><td>Pro</td><td>${pro}</td></tr></table>
  <script>var x = 1;</script>
</body></html>`;

describe('comparedText', () => {
  it('should keep the visible text, one block per line, without scripts and styles', () => {
    const text = comparedText(pricing('$29', '10:00:00', 'Sale!'), 'html', opts);
    expect(text).toContain('Sale!');
    expect(text).toContain('Pro');
    expect(text).not.toContain('var x');
    expect(text).not.toContain('color:red');
    expect(text.split('\n').length).toBeGreaterThan(3);
  });

  it('should read only the selected element when a selector is given', () => {
    const text = comparedText(pricing('$29', '10:00:00', 'Sale!'), 'html', { ...opts, selector: '#prices' });
    expect(text).toContain('$29');
    expect(text).not.toContain('Sale!');
    expect(text).not.toContain('Updated');
  });

  it('should drop ignored elements and strip ignored text', () => {
    const a = comparedText(pricing('$29', '10:00:00', 'Sale!'), 'html', { selector: undefined, ignoreSelectors: ['.banner'], ignoreText: ['\\d{2}:\\d{2}:\\d{2}'] });
    const b = comparedText(pricing('$29', '23:59:59', 'New!'), 'html', { selector: undefined, ignoreSelectors: ['.banner'], ignoreText: ['\\d{2}:\\d{2}:\\d{2}'] });
    expect(a).toBe(b);
    expect(a).not.toContain('Sale!');
  });

  it('should give an empty text when the selector matches nothing', () => {
    expect(comparedText(pricing('$29', '1', 'x'), 'html', { ...opts, selector: '#missing' })).toBe('');
  });

  it('should take a Markdown result as its text', () => {
    expect(comparedText('# Plans\n\n| Pro | $29 |\n', 'md', { ...opts, ignoreText: ['\\$\\d+'] })).toBe('# Plans\n| Pro | |');
  });
});

describe('compareTexts', () => {
  it('should find nothing in equal texts', () => {
    expect(compareTexts('a\nb', 'a\nb', { before: 'x', after: 'y' })).toEqual({ score: 0, summary: 'The text is the same.', boxes: [] });
  });

  it('should count changed characters, lines added and removed, quote the first change and write a unified diff', () => {
    const before = 'Plan Price\nBasic $9\nPro $29';
    const after = 'Plan Price\nBasic $9\nPro $39\nTeam $99';
    const result = compareTexts(before, after, { before: 'run-1', after: 'run-2' });
    expect(result.summary).toBe('2 lines added, 1 line removed; first change: "- Pro $29"');
    expect(result.score).toBeGreaterThan(0);
    expect(result.score).toBeLessThan(20);
    const patch = new TextDecoder().decode(result.diff!.body);
    expect(patch).toContain('--- run-1');
    expect(patch).toContain('+++ run-2');
    expect(patch).toContain('-Pro $29');
    expect(patch).toContain('+Pro $39');
    expect(patch).toContain('+Team $99');
    expect(patch).toMatch(/@@ -\d+,\d+ \+\d+,\d+ @@/);
  });
});
