import { describe, expect, it } from 'vitest';
import { compareRows, formatComparison } from './comparison.js';
import type { Row } from './report.js';

describe('compareRows', () => {
  it('should judge a row by its ratio to the baseline of its own run, so a machine that slowed between runs cannot decide it', () => {
    // At head the machine was slower: our figure and (a)'s both doubled; the ratio is the same.
    const head: Row[] = [{ scenario: '(1) screenshot', metric: 'p50 ms', ours: 300, a: 600 }];
    const ref: Row[] = [{ scenario: '(1) screenshot', metric: 'p50 ms', ours: 150, a: 300 }];
    expect(compareRows(head, ref)).toEqual([expect.objectContaining({ gain: 1, verdict: 'same' })]);
  });

  it('should count a shorter time and a higher rate as better, and the opposite as worse', () => {
    const head: Row[] = [
      { scenario: '(1)', metric: 'p99 ms', ours: 80, a: 100 },
      { scenario: '(2)', metric: 'renders/s', ours: 6, a: 8 },
      { scenario: '(3)', metric: 'requests/s', ours: 900, floor: 1000 },
      { scenario: '(6)', metric: 'jobs published twice or early', ours: 3 },
    ];
    const ref: Row[] = [
      { scenario: '(1)', metric: 'p99 ms', ours: 100, a: 100 },
      { scenario: '(2)', metric: 'renders/s', ours: 7, a: 8 },
      { scenario: '(3)', metric: 'requests/s', ours: 700, floor: 1000 },
      { scenario: '(6)', metric: 'jobs published twice or early', ours: 0 },
    ];
    const [p99, rate, hits, twice] = compareRows(head, ref);
    expect(p99).toMatchObject({ gain: 1.25, verdict: 'better' });
    expect(rate!.gain).toBeCloseTo(6 / 7);
    expect(rate!.verdict).toBe('worse');
    expect(hits!.gain).toBeCloseTo(900 / 700);
    expect(hits!.verdict).toBe('better');
    // From none to some of a cost has no ratio, but is worse.
    expect(twice).toMatchObject({ verdict: 'worse' });
    expect(twice!.gain).toBeUndefined();
  });

  it('should call a change within the band the same, and keep rows only one side has', () => {
    const head: Row[] = [
      { scenario: '(2)', metric: 'renders/s', ours: 6.3, a: 7 },
      { scenario: '(12) steps', metric: 'p50 / plain p50', ours: 1.2 },
    ];
    const ref: Row[] = [
      { scenario: '(2)', metric: 'renders/s', ours: 6, a: 7 },
      { scenario: '(10) gone', metric: 'p50 ms', ours: 40 },
    ];
    expect(compareRows(head, ref).map((c) => c.verdict)).toEqual(['same', 'only at head', 'only at ref']);
  });

  it("should mark a baseline's own rows as such, whichever way the machine moved them", () => {
    const floor = '(3, 4) floor: bare Node HTTPS server, 69488 B body';
    const coalescing = "(3) the floor writing each turn's responses together, 69488 B body";
    const hits = '(3) cache hits over HTTPS';
    const head: Row[] = [
      { scenario: floor, metric: 'requests/s', ours: 8000 },
      { scenario: coalescing, metric: 'requests/s', ours: 9800 },
      { scenario: hits, metric: 'requests/s', ours: 6700, floor: 8000 },
    ];
    const ref: Row[] = [
      { scenario: floor, metric: 'requests/s', ours: 11000 },
      { scenario: coalescing, metric: 'requests/s', ours: 13000 },
      { scenario: hits, metric: 'requests/s', ours: 8100, floor: 11000 },
    ];
    expect(compareRows(head, ref).map((c) => c.verdict)).toEqual(['baseline', 'baseline', 'better']);
  });
});

describe('formatComparison', () => {
  it('should give each side its figure with its ratio to its own baseline, then the gain and the verdict', () => {
    const table = formatComparison(
      compareRows([{ scenario: '(2)', metric: 'renders/s', ours: 6, a: 8 }], [{ scenario: '(2)', metric: 'renders/s', ours: 5, a: 8 }]),
      { head: 'abc1234', ref: 'eedeae60c8f8' },
    ).split('\n');
    expect(table[0]).toMatch(/^\| scenario +\| metric +\| abc1234 +\| eedeae60c8f8 +\| gain +\| verdict +\|$/);
    expect(table[2]).toMatch(/^\| \(2\) +\| renders\/s +\| 6 \(0\.75x of 8\) +\| 5 \(0\.63x of 8\) +\| 1\.20x +\| better +\|$/);
  });
});
