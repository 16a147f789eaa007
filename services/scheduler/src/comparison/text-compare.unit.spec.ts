import { describe, expect, it } from 'vitest';
import { applyPatch } from 'diff';
import { comparedText } from './text-extract.js';
import { MAX_LINE_EDITS, compareTexts } from './text-diff.js';

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

  const listing = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `Item ${(i * 7919 + seed) % 100_003} costs $${(i * seed) % 997}`).join('\n');

  it.each([2_000, 20_000])(
    'should count every line as changed, and say so, when all %i lines of a listing change (beyond the line diff\'s bound)',
    (lines) => {
      const before = `Prices\n${listing(lines, 1)}\nFooter`;
      const after = `Prices\n${listing(lines, 2)}\nFooter`;
      const result = compareTexts(before, after, { before: 'run-1', after: 'run-2' });
      expect(result.summary).toBe(
        `${lines} lines added, ${lines} lines removed (more than ${MAX_LINE_EDITS} lines differ: every line from the first change to the last counts as changed); ` +
          `first change: "- ${listing(1, 1)}"`,
      );
      expect(result.score).toBe(listing(lines, 1).length + listing(lines, 2).length + 2);
      // The diff file is a unified diff that turns the old text into the new one, with the unchanged
      // first and last lines as context.
      const patch = new TextDecoder().decode(result.diff!.body);
      expect(patch).toContain(`@@ -1,${lines + 2} +1,${lines + 2} @@\n Prices\n`);
      expect(applyPatch(`${before}\n`, patch)).toBe(`${after}\n`);
    },
  );

  it('should still compare line by line when a few lines of a long listing change', () => {
    const before = listing(20_000, 1);
    const lines = before.split('\n');
    lines[10_000] = 'Item 1 costs $1';
    const result = compareTexts(before, lines.join('\n'), { before: 'run-1', after: 'run-2' });
    expect(result.summary).toBe(`1 line added, 1 line removed; first change: "- ${before.split('\n')[10_000]}"`);
    expect(applyPatch(`${before}\n`, new TextDecoder().decode(result.diff!.body))).toBe(`${lines.join('\n')}\n`);
  });
});

describe('comparedText with a pattern that backtracks quadratically', () => {
  it('should strip with \\d+x over 80 kB of digits in the linear-time engine (the text stays, nothing matches)', () => {
    const digits = '7'.repeat(80_000);
    expect(comparedText(`# Page\n\n${digits}\n`, 'md', { ...opts, ignoreText: ['\\d+x', '\\d+y'] })).toBe(`# Page\n${digits}`);
  });
});
