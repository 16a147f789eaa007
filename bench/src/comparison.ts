import { isFloorRow, type Row } from './report.js';

/** One row of the bench measured at this checkout (`head`) and at another commit (`ref`), each in its own run. */
export interface ComparedRow {
  scenario: string;
  metric: string;
  head?: Row;
  ref?: Row;
  /**
   * How much better (> 1) or worse (< 1) this checkout did: the ratio of our figure to the baseline its own
   * run measured beside it, against the same at `ref`, so a machine that slowed between the two runs
   * weighs on both alike; without a baseline, our two figures. Undefined when a side lacks the row.
   */
  gain?: number;
  verdict: 'better' | 'worse' | 'same' | 'baseline' | 'only at head' | 'only at ref';
}

/** Metrics where a larger figure is better (throughput, work done in time); every other is a cost (ms, MiB, a ratio to plain). */
const HIGHER_IS_BETTER = [/\/s$/, /in the minute$/, /^answered 200$/, /^webhooks /];
export const higherIsBetter = (metric: string) => HIGHER_IS_BETTER.some((re) => re.test(metric));

/** The baseline a row's ratio is taken against: (a), the floor, block_annoyance=none or (b), the first the row has. */
export const baselineOf = (row: Row): number | undefined => [row.a, row.floor, row.none, row.b].find((v) => typeof v === 'number' && v > 0);

function gainOf(metric: string, head: Row, ref: Row): number | undefined {
  const [hb, rb] = [baselineOf(head), baselineOf(ref)];
  const [h, r] = hb !== undefined && rb !== undefined ? [head.ours / hb, ref.ours / rb] : [head.ours, ref.ours];
  if (h === r) return 1;
  if (!(h > 0) || !(r > 0)) return undefined;
  return higherIsBetter(metric) ? h / r : r / h;
}

/** Figures with no ratio between them (a count from none to some): which way they moved. */
const byDirection = (metric: string, head: number, ref: number) =>
  head === ref || !Number.isFinite(head - ref) ? 'same' : head > ref === higherIsBetter(metric) ? 'better' : 'worse';

/** A row both sides have: the floor's own is a baseline; otherwise its gain beyond `band`, or which way it moved. */
function verdictOf(head: Row, ref: Row, gain: number | undefined, band: number): ComparedRow['verdict'] {
  if (isFloorRow(head.scenario)) return 'baseline';
  if (gain === undefined) return byDirection(head.metric, head.ours, ref.ours);
  if (Math.abs(gain - 1) <= band) return 'same';
  return gain > 1 ? 'better' : 'worse';
}

/**
 * Every row of either side, in this checkout's order (rows only `ref` has follow), matched by scenario and
 * metric. A gain beyond `band` either way (default 10%: one run a side on a shared machine moves that much)
 * is a verdict of better or worse; within it, the same. A baseline's own row (the floor's) is marked as one.
 */
export function compareRows(head: Row[], ref: Row[], band = 0.1): ComparedRow[] {
  const key = (r: Row) => `${r.scenario}\u0000${r.metric}`;
  const refByKey = new Map(ref.map((r) => [key(r), r]));
  const headKeys = new Set(head.map(key));
  const compared: ComparedRow[] = head.map((h) => {
    const r = refByKey.get(key(h));
    if (!r) return { scenario: h.scenario, metric: h.metric, head: h, verdict: 'only at head' };
    const gain = gainOf(h.metric, h, r);
    return { scenario: h.scenario, metric: h.metric, head: h, ref: r, ...(gain !== undefined ? { gain } : {}), verdict: verdictOf(h, r, gain, band) };
  });
  for (const r of ref) if (!headKeys.has(key(r))) compared.push({ scenario: r.scenario, metric: r.metric, ref: r, verdict: 'only at ref' });
  return compared;
}

const figure = (row: Row | undefined) => {
  if (!row) return '–';
  const base = baselineOf(row);
  return base === undefined ? String(row.ours) : `${row.ours} (${(row.ours / base).toFixed(2)}x of ${base})`;
};

/** A Markdown table of the comparison: each side's figure with its ratio to its own run's baseline, the gain, the verdict. */
export function formatComparison(rows: ComparedRow[], labels: { head: string; ref: string }): string {
  const header = ['scenario', 'metric', labels.head, labels.ref, 'gain', 'verdict'];
  const lines = rows.map((c) => [c.scenario, c.metric, figure(c.head), figure(c.ref), c.gain === undefined ? '' : `${c.gain.toFixed(2)}x`, c.verdict]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...lines.map(fmt)].join('\n');
}
