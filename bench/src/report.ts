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
}

const ratio = (ours: number, base: number | undefined) => (base === undefined || !base ? '' : `${(ours / base).toFixed(2)}x`);

/** One Markdown table: scenario, our figure, baseline figures, ratios (ours / baseline). */
export function formatTable(rows: Row[]): string {
  const header = ['scenario', 'metric', 'ours', 'baseline (a) fresh context', 'baseline (b) reused page', 'floor: bare HTTPS', 'ours/(a)', 'ours/(b)', 'ours/floor'];
  const cell = (n: number | undefined) => (n === undefined ? '' : String(n));
  const lines = rows.map((r) => [r.scenario, r.metric, String(r.ours), cell(r.a), cell(r.b), cell(r.floor), ratio(r.ours, r.a), ratio(r.ours, r.b), ratio(r.ours, r.floor)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...lines.map(fmt)].join('\n');
}
