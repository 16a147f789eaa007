import { describe, expect, it } from 'vitest';
import { formatTable, type Row } from './report.js';

const rows: Row[] = [
  { scenario: '(1) screenshot', metric: 'p50 ms', ours: 150, a: 300 },
  { scenario: '(1) screenshot', metric: 'p99 ms', ours: 200, a: 400 },
  { scenario: '(2) throughput', metric: 'renders/s', ours: 5, a: 4 },
  { scenario: '(9) burst', metric: 'p50 ms', ours: 40 },
  { scenario: '(9) other', metric: 'p99 ms', ours: 90 },
];

describe('formatTable', () => {
  describe('When the table is the full one', () => {
    it('should give every row and every column', () => {
      const table = formatTable(rows).split('\n');
      expect(table).toHaveLength(2 + rows.length);
      expect(table[0]).toContain('block_annoyance=none');
      expect(table[2]).toMatch(/^\| \(1\) screenshot +\| p50 ms +\| 150 +\| 300 .*\| 0\.50x/);
    });
  });

  describe('When the table is compact', () => {
    it('should put a p50 and the p99 of the same scenario in one row, and leave out the columns no row fills', () => {
      const table = formatTable(rows, { compact: true }).split('\n');
      expect(table).toHaveLength(2 + 4);
      expect(table[0]).not.toContain('block_annoyance=none');
      expect(table[0]).not.toContain('(b)');
      expect(table[2]).toMatch(/^\| \(1\) screenshot +\| p50 \/ p99 ms +\| 150 \/ 200 +\| 300 \/ 400 +\| 0\.50x \/ 0\.50x +\|$/);
      // A p50 row without its scenario's p99 stays a row of its own.
      expect(table[4]).toMatch(/^\| \(9\) burst +\| p50 ms +\| 40 /);
      expect(table[5]).toMatch(/^\| \(9\) other +\| p99 ms +\| 90 /);
    });
  });
});
