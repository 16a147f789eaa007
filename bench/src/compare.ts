// npm run bench:compare -- <git ref>: the bench at this checkout beside the same bench at another commit, on
// this machine in one sitting, scenario by scenario, the side that goes first alternating, so a change of the
// machine's speed weighs on both alike. BENCH_SCENARIOS=1,3 picks the scenarios (default: all); BENCH_QUICK
// passes through. The other commit is checked out once into a worktree (BENCH_COMPARE_DIR, default under the
// system's temporary folder), installed and built by its own scripts. Output: bench-results/latest.compare.{md,json}, and
// this checkout's own rows with its targets in latest.compare.head.md.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@app/stack';
import { compareRows, formatComparison } from './comparison.js';
import { formatTable, type Row } from './report.js';
import { formatTargets, judgeTargets } from './targets.js';

const log = (msg: string) => process.stderr.write(`[bench:compare] ${msg}\n`);
const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();

const ref = process.argv[2];
if (!ref) {
  log('usage: npm run bench:compare -- <git ref>   (BENCH_SCENARIOS=1,3 to pick scenarios)');
  process.exit(2);
}
const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
const head = `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' with changes' : ''}`;
const refRoot = process.env.BENCH_COMPARE_DIR ?? join(tmpdir(), 'render-bench-compare', sha.slice(0, 12));

if (!existsSync(join(refRoot, 'package.json'))) {
  log(`checking out ${sha.slice(0, 12)} into ${refRoot}`);
  mkdirSync(join(refRoot, '..'), { recursive: true });
  git('worktree', 'add', '--detach', refRoot, sha);
}
log(`installing and building ${sha.slice(0, 12)} with its own scripts`);
const prepared = spawnSync('bash', ['scripts/ensure-deps.sh'], { cwd: refRoot, stdio: ['ignore', 'inherit', 'inherit'] });
if (prepared.status !== 0) {
  log(`${sha.slice(0, 12)} could not be installed or built (exit ${prepared.status})`);
  process.exit(1);
}

const scenarios = (process.env.BENCH_SCENARIOS || '1,2,3,4,5,6,7,8,9,10,11,12').split(',').filter(Boolean);
const scratch = mkdtempSync(join(tmpdir(), 'bench-compare-'));
const sides = [
  { name: 'head', root: REPO_ROOT, rows: [] as Row[] },
  { name: 'ref', root: refRoot, rows: [] as Row[] },
];
const failures: string[] = [];

/** One scenario on one side: its own `npm run bench` process; its rows, read from the results it wrote. */
function runScenario(side: (typeof sides)[number], scenario: string) {
  // This checkout writes where it is told; the other commit writes into its own worktree.
  const resultsDir = side.name === 'head' ? join(scratch, scenario) : join(side.root, 'bench-results');
  const file = join(resultsDir, 'latest.json');
  // A run that fails before writing its results must not leave the previous scenario's to be read again.
  rmSync(file, { force: true });
  log(`scenario ${scenario} at ${side.name === 'head' ? head : sha.slice(0, 12)}`);
  const run = spawnSync(process.execPath, ['bench/dist/run.js'], {
    cwd: side.root,
    env: { ...process.env, BENCH_SCENARIOS: scenario, BENCH_RESULTS_DIR: resultsDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (run.status !== 0) failures.push(`scenario ${scenario} at ${side.name === 'head' ? head : sha.slice(0, 12)}: exit ${run.status ?? run.signal}`);
  if (existsSync(file)) side.rows.push(...(JSON.parse(readFileSync(file, 'utf8')) as { rows: Row[] }).rows);
}

scenarios.forEach((scenario, i) => {
  for (const side of i % 2 === 0 ? sides : [...sides].reverse()) runScenario(side, scenario);
});

const compared = compareRows(sides[0]!.rows, sides[1]!.rows);
const labels = { head, ref: sha.slice(0, 12) };
const table = formatComparison(compared, labels);
const dir = join(REPO_ROOT, 'bench-results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'latest.compare.json'), JSON.stringify({ date: new Date().toISOString(), head, ref: sha, scenarios, failures, rows: compared }, null, 2));
writeFileSync(join(dir, 'latest.compare.md'), `${table}\n${failures.map((f) => `\nnot measured: ${f}`).join('')}\n`);
// This checkout's side alone is a whole run of the bench, scenario by scenario: its table and targets as `npm run bench` writes them.
const headRows = sides[0]!.rows;
writeFileSync(join(dir, 'latest.compare.head.md'), `${formatTargets(judgeTargets(headRows))}\n\n${formatTable(headRows, { compact: true })}\n\n${formatTable(headRows)}\n`);
console.log(table);
for (const f of failures) log(`not measured: ${f}`);
log(`written to ${join(dir, 'latest.compare.md')}`);
if (failures.length) process.exitCode = 1;
