import { describe, expect, it } from 'vitest';
import { formatTable, type Row } from './report.js';
import { TARGETS, formatTargets, judgeTargets, rowsOfTable } from './targets.js';

const CONCURRENCY_8 = TARGETS[0]!;
const HITS = TARGETS[1]!;
const HITS_P99 = TARGETS[2]!;
const rows: Row[] = [
  { scenario: CONCURRENCY_8.scenario, metric: 'renders/s', ours: 5.14, a: 6.69 },
  { scenario: HITS.scenario, metric: 'requests/s', ours: 4205, floor: 5849 },
  { scenario: HITS.scenario, metric: 'p99 ms', ours: 21.62, floor: 11.92 },
  { scenario: '(1) screenshot, one at a time', metric: 'p50 ms', ours: 214.4, a: 410.3 },
];

describe('The benchmark targets', () => {
  describe('When a run missed its ratios', () => {
    it('should measure each against its baseline and say by how much it missed', () => {
      const results = judgeTargets(rows, [CONCURRENCY_8, HITS, HITS_P99]);
      expect(results.map((r) => [r.measured, r.met])).toEqual([
        [0.77, false],
        [0.72, false],
        [1.81, false],
      ]);
      const table = formatTargets(results).split('\n');
      expect(table[2]).toMatch(/concurrency 8, like for like +\| ≥ 0.92 x of \(a\) +\| 0.77 x of \(a\) +\| missed by 16% +\|/);
      expect(table[4]).toMatch(/cache hits, p99 +\| ≤ 1.3 x of the floor +\| 1.81 x of the floor +\| missed by 39% +\|/);
    });
  });

  describe('When a target is met, or its scenario was not run', () => {
    it('should say met, or not measured', () => {
      const met = judgeTargets([{ scenario: HITS.scenario, metric: 'requests/s', ours: 5200, floor: 5849 }], [HITS, CONCURRENCY_8]);
      expect(formatTargets(met)).toMatch(/0.89 x of the floor \| met/);
      expect(formatTargets(met)).toMatch(/not measured/);
    });
  });

  describe('When a ratio falls just short of its bound', () => {
    it('should say missed, with the place that shows it', () => {
      const [result] = judgeTargets([{ scenario: CONCURRENCY_8.scenario, metric: 'renders/s', ours: 7.5, a: 8.17 }], [CONCURRENCY_8]);
      expect(result).toMatchObject({ measured: 0.918, met: false });
      expect(formatTargets([result!])).toMatch(/0.918 x of \(a\) +\| missed by 0.2% +\|/);
    });
  });

  describe('When a recorded full table is read back', () => {
    it('should give the rows it was written from', () => {
      expect(rowsOfTable(formatTable(rows))).toEqual(rows.map((r) => ({ a: undefined, b: undefined, floor: undefined, none: undefined, ...r })));
    });
  });
});
