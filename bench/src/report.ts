export interface Row {
  scenario: string;
  metric: string;
  ours: number;
  /** Baseline (a): warm browser, fresh isolated context per render. */
  a?: number;
  /** Baseline (b): one reused page. */
  b?: number;
  /** The floor of (3) and (4): a bare Node HTTPS server, same certificate, body and wrk settings. */
  floor?: number;
  /** The same requests with block_annoyance=none (what the default cookie banner handling is compared with). */
  none?: number;
}

/** The floor's own rows in (3) and (4): the bare server, and the one that writes each turn's responses together. */
export const floorScenario = (ids: string, bodyBytes: number) => `${ids} floor: bare Node HTTPS server, ${bodyBytes} B body`;
export const coalescingFloorScenario = (bodyBytes: number) => `(3) the floor writing each turn's responses together, ${bodyBytes} B body`;
/** A row of the floor's own (as the two above name it): what the machine did, a baseline and not a figure of ours. */
export const isFloorRow = (scenario: string) => /^\([\d, ]+\) (?:floor:|the floor )/.test(scenario);

const ratio = (ours: number, base: number | undefined) => (base === undefined || !base ? '' : `${(ours / base).toFixed(2)}x`);

const HEADER = ['scenario', 'metric', 'ours', 'baseline (a) fresh context', 'baseline (b) reused page', 'floor: bare HTTPS', 'block_annoyance=none', 'ours/(a)', 'ours/(b)', 'ours/floor', 'ours/none'];

const cell = (n: number | undefined) => (n === undefined || n === null ? '' : String(n));
const cellsOf = (r: Row) => [r.scenario, r.metric, cell(r.ours), cell(r.a), cell(r.b), cell(r.floor), cell(r.none), ratio(r.ours, r.a), ratio(r.ours, r.b), ratio(r.ours, r.floor), ratio(r.ours, r.none)];

/**
 * A p50 row followed by the same scenario's p99 row, as one row: each cell "p50 / p99" (a cell empty in
 * both stays empty).
 */
function pairPercentiles(rows: Row[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < rows.length; i++) {
    const [row, next] = [rows[i]!, rows[i + 1]];
    const pair = next && next.scenario === row.scenario && /^p50 /.test(row.metric) && next.metric === row.metric.replace(/^p50 /, 'p99 ');
    if (!pair) {
      out.push(cellsOf(row));
      continue;
    }
    const [p50, p99] = [cellsOf(row), cellsOf(next)];
    out.push(p50.map((c, j) => (j === 0 ? c : j === 1 ? row.metric.replace(/^p50 /, 'p50 / p99 ') : c || p99[j] ? `${c || '–'} / ${p99[j] || '–'}` : '')));
    i++;
  }
  return out;
}

/**
 * One Markdown table: scenario, our figure, baseline figures, ratios (ours / baseline). `compact` (the
 * README's) puts each p50 and p99 in one row and leaves out the columns no row fills.
 */
export function formatTable(rows: Row[], opts: { compact?: boolean } = {}): string {
  let lines = opts.compact ? pairPercentiles(rows) : rows.map(cellsOf);
  let header = HEADER;
  if (opts.compact) {
    const used = HEADER.map((_, i) => i < 3 || lines.some((l) => l[i] !== ''));
    header = HEADER.filter((_, i) => used[i]);
    lines = lines.map((l) => l.filter((_, i) => used[i]));
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...lines.map(fmt)].join('\n');
}
