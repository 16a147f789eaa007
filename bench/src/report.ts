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

const ratio = (ours: number, base: number | undefined) => (base === undefined || !base ? '' : `${(ours / base).toFixed(2)}x`);

/** One Markdown table: scenario, our figure, baseline figures, ratios (ours / baseline). */
export function formatTable(rows: Row[]): string {
  const header = ['scenario', 'metric', 'ours', 'baseline (a) fresh context', 'baseline (b) reused page', 'floor: bare HTTPS', 'block_annoyance=none', 'ours/(a)', 'ours/(b)', 'ours/floor', 'ours/none'];
  const cell = (n: number | undefined) => (n === undefined ? '' : String(n));
  const lines = rows.map((r) => [r.scenario, r.metric, String(r.ours), cell(r.a), cell(r.b), cell(r.floor), cell(r.none), ratio(r.ours, r.a), ratio(r.ours, r.b), ratio(r.ours, r.floor), ratio(r.ours, r.none)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...lines.map(fmt)].join('\n');
}
