import type { Row } from './report.js';

/**
 * What the benchmark is held to: each target names the row it reads (scenario and metric), how it reads it
 * (our figure, or our figure against a baseline of the same run) and the bound. The README carries the
 * table these make (target, measured, verdict); the wide table of every row stays in bench-results/.
 */
export interface Target {
  name: string;
  scenario: string;
  metric: string;
  /** Our figure as it is, or as a ratio to the same row's baseline. */
  of: 'ours' | 'a' | 'floor';
  bound: { atLeast: number } | { atMost: number } | { below: number };
  unit: string;
}

export const TARGETS: readonly Target[] = [
  { name: 'concurrency 8, like for like', scenario: '(2) screenshots, concurrency 8, baseline (a) on the headless shell', metric: 'renders/s', of: 'a', bound: { atLeast: 0.92 }, unit: 'x of (a)' },
  { name: 'cache hits, requests a second', scenario: '(3) cache hits over HTTPS', metric: 'requests/s', of: 'floor', bound: { atLeast: 0.85 }, unit: 'x of the floor' },
  { name: 'cache hits, p99', scenario: '(3) cache hits over HTTPS', metric: 'p99 ms', of: 'floor', bound: { atMost: 1.3 }, unit: 'x of the floor' },
  // 786.6 MiB for the renderer's 8 slots (the bench's RENDERER_CONCURRENCY) in the run of 2026-11-28 16:56.
  { name: "a render's memory, per slot after 1,000 renders", scenario: '(7) renderer RSS after 1000 renders, per slot (8 slots)', metric: 'MiB', of: 'ours', bound: { atMost: 98.3 }, unit: 'MiB' },
  { name: '10,000 tasks a minute, one scheduler, all in their minute', scenario: '(6) 10000 every_minute tasks of 100 accounts, one scheduler: due → job published', metric: 'jobs in the minute', of: 'ours', bound: { atLeast: 10_000 }, unit: 'jobs' },
  { name: '10,000 tasks a minute, none twice or early', scenario: '(6) 10000 every_minute tasks of 100 accounts, one scheduler: due → job published', metric: 'jobs published twice or early', of: 'ours', bound: { atMost: 0 }, unit: 'jobs' },
  { name: '1,000 visual monitors, due → compared, p99', scenario: '(9) 1000 every_minute visual monitors (1280×1080 PNG), all changed, SCHEDULER_CONCURRENCY=16: due → compared', metric: 'p99 ms', of: 'ours', bound: { below: 30_000 }, unit: 'ms' },
  { name: '1,000 visual monitors, all compared in their minute', scenario: '(9) 1000 every_minute visual monitors (1280×1080 PNG), all changed, SCHEDULER_CONCURRENCY=16: due → compared', metric: 'compared in the minute', of: 'ours', bound: { atLeast: 1_000 }, unit: 'monitors' },
  { name: 'change → notification received, p99', scenario: '(9) change recorded → task.changed webhook received', metric: 'p99 ms', of: 'ours', bound: { below: 3_000 }, unit: 'ms' },
];

export interface TargetResult {
  target: Target;
  /** Undefined when the run has no such row (a scenario left out). */
  measured?: number;
  met?: boolean;
}

const boundText = (b: Target['bound']) => ('atLeast' in b ? `≥ ${b.atLeast}` : 'atMost' in b ? `≤ ${b.atMost}` : `< ${b.below}`);
const meets = (b: Target['bound'], v: number) => ('atLeast' in b ? v >= b.atLeast : 'atMost' in b ? v <= b.atMost : v < b.below);

/** Each target against the rows of one run. */
export function judgeTargets(rows: readonly Row[], targets: readonly Target[] = TARGETS): TargetResult[] {
  return targets.map((target) => {
    const row = rows.find((r) => r.scenario === target.scenario && r.metric === target.metric);
    const base = row && target.of !== 'ours' ? row[target.of] : undefined;
    if (!row || (target.of !== 'ours' && !base)) return { target };
    if (target.of === 'ours') return { target, measured: row.ours, met: meets(target.bound, row.ours) };
    // A ratio is shown to two places, and to three where two would round it across its bound (0.918 is not ≥ 0.92).
    const ratio = row.ours / base!;
    const met = meets(target.bound, ratio);
    const shown = Number(ratio.toFixed(2));
    return { target, measured: meets(target.bound, shown) === met ? shown : Number(ratio.toFixed(3)), met };
  });
}

/** The README's table: target, measured, verdict (met, or missed by how much). */
export function formatTargets(results: readonly TargetResult[]): string {
  const lines = results.map(({ target, measured, met }) => {
    const goal = `${boundText(target.bound)} ${target.unit}`;
    if (measured === undefined) return [target.name, goal, 'not measured', '–'];
    const edge = 'atLeast' in target.bound ? target.bound.atLeast : 'atMost' in target.bound ? target.bound.atMost : target.bound.below;
    const share = edge === 0 ? 0 : (Math.abs(measured - edge) / Math.abs(edge)) * 100;
    const by = edge === 0 ? `${Math.abs(measured - edge)}` : `${share < 1 ? share.toFixed(1) : Math.round(share)}%`;
    return [target.name, goal, `${measured} ${target.unit}`, met ? 'met' : `missed by ${by}`];
  });
  const header = ['target', 'bound', 'measured', 'verdict'];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...lines.map(fmt)].join('\n');
}

/** The rows of a full table as formatTable wrote it (bench-results/*.md), to judge a recorded run again. */
export function rowsOfTable(markdown: string): Row[] {
  const num = (c: string | undefined) => (c === undefined || c.trim() === '' ? undefined : Number(c.trim()));
  return markdown
    .split('\n')
    .filter((l) => /^\s*\|?\s*\(\d/.test(l))
    .map((l) => l.replace(/^\s*\|/, '').split('|'))
    .map((c) => ({ scenario: c[0]!.trim(), metric: c[1]!.trim(), ours: num(c[2])!, a: num(c[3]), b: num(c[4]), floor: num(c[5]), none: num(c[6]) }))
    .filter((r) => Number.isFinite(r.ours));
}
