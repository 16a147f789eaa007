// npm run bench: the service against the raw-browser limit on the same machine, in the same run.
// BENCH_QUICK=1 shortens every scenario; BENCH_SCENARIOS=1,6 runs only those (8: screencast, 9: change monitoring,
// 10: one NATS server beside a three-node cluster, 11: element capture, wait_for_selector and a 60,000 px full page,
// 12: a scrape with 4 browser steps that sign in, beside a plain scrape).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, ensureSelfSignedCertificate } from '@app/stack';
import { startFixtureServer, startSignInSite, startTestStack, type TestStack } from '@app/testkit';
import { HEADLESS_SHELL, startBaselines, type Baselines } from './baselines.js';
import { serviceClient, type ServiceClient } from './client.js';
import { BENCH_ROUTES } from './fixture-page.js';
import { latencyScenario } from './scenarios/latency.js';
import { defaultVsNoneScenario } from './scenarios/default-vs-none.js';
import { throughputScenario, type CpuPerRender } from './scenarios/throughput.js';
import { besideFloorScenario } from './scenarios/beside-the-floor.js';
import { startHttpsFloor } from './https-floor.js';
import { memoryScenario } from './scenarios/memory.js';
import { schedulerScenario } from './scenarios/scheduler.js';
import { screencastScenario } from './scenarios/screencast.js';
import { monitoringScenario } from './scenarios/monitoring.js';
import { natsClusterScenario } from './scenarios/nats-cluster.js';
import { elementCaptureScenario, tallPageScenario } from './scenarios/element-capture.js';
import { browserStepsScenario } from './scenarios/browser-steps.js';
import { round } from './stats.js';
import { formatTargets, judgeTargets } from './targets.js';
import { coalescingFloorScenario, floorScenario, formatTable, type Row } from './report.js';
import { scenarioAttempts } from './failures.js';

const quick = process.env.BENCH_QUICK === '1';
const only = new Set((process.env.BENCH_SCENARIOS ?? '').split(',').filter(Boolean).map(Number));
const want = (n: number) => only.size === 0 || only.has(n);
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

// The baselines do no annoyance blocking, so like is compared with like (the default,
// block_annoyance=cookies_banner, is measured in a row of its own).
const LIKE_BASELINE = { block_annoyance: 'none' };
// The bench measures the service, not the plan: no rate limit or quota gets in the way, and an account may have
// the most renders in flight a plan can allow (auth-quota's bound).
const UNLIMITED = { PLAN_SCALE_RATE_LIMIT: '100000000', PLAN_SCALE_QUOTA: '100000000', PLAN_SCALE_RENDERS_IN_FLIGHT: '1000' };
/** Render slots of the bench's renderer (RENDERER_CONCURRENCY): (7) reports memory per slot. */
const SLOTS = 8;
const rows: Row[] = [];
const results: Record<string, unknown> = { date: new Date().toISOString(), machine: { cores: cpus().length }, quick };

interface Ctx {
  url: string;
  stack: TestStack;
  client: ServiceClient;
  baselines: Baselines;
  /** The accounts whose keys the loads that fill every slot use (the demo account alone: it may fill the fleet). */
  accessKeys: string[];
}

async function latency(ctx: Ctx) {
  for (const operation of ['screenshot', 'pdf', 'scrape'] as const) {
    if (!want(operation === 'screenshot' ? 1 : 5)) continue;
    log(`latency: ${operation}`);
    const runs = quick ? 10 : operation === 'screenshot' ? 60 : 30;
    const r = await latencyScenario({ operation, url: ctx.url, client: ctx.client, baselines: ctx.baselines, warmup: 5, runs, params: LIKE_BASELINE });
    results[`latency_${operation}`] = r;
    const scenario = operation === 'screenshot' ? '(1) screenshot, one at a time' : `(5) ${operation}, one at a time`;
    rows.push({ scenario, metric: 'p50 ms', ours: round(r.ours.p50), a: round(r.freshContext.p50), b: round(r.reusedPage.p50) });
    rows.push({ scenario, metric: 'p99 ms', ours: round(r.ours.p99), a: round(r.freshContext.p99), b: round(r.reusedPage.p99) });
  }
  if (want(1)) {
    // The default (block_annoyance=cookies_banner) against block_annoyance=none, interleaved, on the bench
    // page (no banner: the targets are 1.1x, p50 and p99) and on the same page with a OneTrust-style banner
    // (which the default opts out of: 1.3x).
    const pages = [
      ['no cookie banner', ctx.url],
      ['a OneTrust cookie banner', ctx.url.replace(/\/bench$/, '/bench-consent')],
    ] as const;
    for (const [label, url] of pages) {
      log(`latency: screenshot of a page with ${label}, default against block_annoyance=none`);
      const r = await defaultVsNoneScenario({ url, client: ctx.client, warmup: 3, runs: quick ? 10 : 100 });
      results[`latency_screenshot_default_${label === 'no cookie banner' ? 'no_banner' : 'banner'}`] = r;
      const scenario = `(1) screenshot, default block_annoyance=cookies_banner, page with ${label}`;
      rows.push({ scenario, metric: 'p50 ms', ours: round(r.defaults.p50), none: round(r.none.p50) });
      rows.push({ scenario, metric: 'p99 ms', ours: round(r.defaults.p99), none: round(r.none.p99) });
    }
  }
}

async function throughput(ctx: Ctx) {
  for (const concurrency of [4, 8]) {
    log(`throughput at concurrency ${concurrency}`);
    const r = await throughputScenario({ ...ctx, concurrency, renders: quick ? 16 : 64, rounds: 3, params: LIKE_BASELINE, accessKeys: ctx.accessKeys });
    results[`throughput_c${concurrency}`] = r;
    rows.push({ scenario: `(2) screenshots, concurrency ${concurrency}`, metric: 'renders/s', ours: round(r.ours, 2), a: round(r.freshContext, 2) });
  }
  // PNG: ours encodes for speed (the same pixels); (a) as Puppeteer does by default.
  log('throughput at concurrency 8, png');
  const png = await throughputScenario({ ...ctx, concurrency: 8, renders: quick ? 16 : 64, rounds: 3, params: { ...LIKE_BASELINE, format: 'png' }, accessKeys: ctx.accessKeys });
  results.throughput_c8_png = png;
  rows.push({ scenario: '(2) png screenshots, concurrency 8', metric: 'renders/s', ours: round(png.ours, 2), a: round(png.freshContext, 2) });
  // Like for like: baseline (a) on the build the service renders with (Debian's headless shell).
  log('throughput at concurrency 8, baseline (a) on the headless shell');
  const shell = await startBaselines(HEADLESS_SHELL);
  try {
    const r = await throughputScenario({ ...ctx, baselines: shell, concurrency: 8, renders: quick ? 16 : 64, rounds: 3, params: LIKE_BASELINE, accessKeys: ctx.accessKeys });
    results.throughput_c8_shell = r;
    const cpu = (side: CpuPerRender) =>
      `${side.machine} ms on the machine; ${Object.entries(side.byService).sort((x, y) => y[1] - x[1]).map(([service, ms]) => `${service} ${ms}`).join(', ')}`;
    log(`CPU a render at concurrency 8 on the headless shell: ours ${cpu(r.cpuMsPerRender.ours)}; (a) ${cpu(r.cpuMsPerRender.freshContext)}`);
    rows.push({ scenario: '(2) screenshots, concurrency 8, baseline (a) on the headless shell', metric: 'renders/s', ours: round(r.ours, 2), a: round(r.freshContext, 2) });
    rows.push({ scenario: '(2) screenshots, concurrency 8, baseline (a) on the headless shell', metric: 'CPU ms a render (machine)', ours: r.cpuMsPerRender.ours.machine, a: r.cpuMsPerRender.freshContext.machine });
  } finally {
    await shell.close();
  }
}

/**
 * (10)'s cache hits on one NATS server and on a cluster: each side's 10 s in slices of 5 s, interleaved
 * (scenarios/nats-cluster.ts).
 */
const LOAD_SECONDS = quick ? 4 : 10;
const SLICE_SECONDS = quick ? 2 : 5;

/**
 * Scenario `id` in three runs a side alternating with the floor's (floor, ours | ours, floor | floor, ours,
 * so a machine whose speed drifts weighs on both alike), each side's figure the median of its runs
 * (scenarios/beside-the-floor.ts); its rows go to the table.
 */
async function loadBesideFloor(
  ctx: Ctx,
  floor: { port: number },
  id: number,
  label: string,
  accessKey: string,
  body: Record<string, unknown>,
  coalescedFloor?: { port: number },
  uncoalesced?: { port: number },
) {
  const { rows: measured, ...figures } = await besideFloorScenario({ ours: { port: ctx.stack.port }, floor, id, label, accessKey, body, coalescedFloor, uncoalesced, quick, log });
  rows.push(...measured);
  return figures;
}

/**
 * The cache hits (3) measures, each beside a floor answering its body size: the bench page's screenshot
 * (a 1280×1080 JPEG, the default viewport, where encrypting and writing the body weigh most) and a thumbnail of it (a body of a
 * few kB, where what the service does per request weighs most).
 */
const CACHE_HITS = [
  { key: 'page', label: 'cache hits over HTTPS', params: {} },
  { key: 'thumbnail', label: 'cache hits over HTTPS, thumbnail (400×300 webp)', params: { viewport_width: 400, viewport_height: 300, format: 'webp' } },
] as const;

const cachedRequest = (ctx: Ctx, params: Record<string, unknown>) => ({ url: ctx.url, cache: true, cache_ttl: 3600, ...params });

/** A cache hit of `request`, checked; its body size is the floor's. */
async function warmCache(ctx: Ctx, request: Record<string, unknown>): Promise<number> {
  await ctx.client.call('/v1/screenshot', request);
  const check = await ctx.client.call('/v1/screenshot', request);
  if (check.headers['x-service-cache'] !== 'HIT') throw new Error(`the cache did not answer (${check.status})`);
  return check.bytes;
}

/**
 * (3) cache hits and (4) refusals, each interleaved with its floor's run: a bare Node HTTPS server with the stack's
 * certificate and a cache hit's body size (refusals: the page's). Each floor's own rows go before its (3).
 */
async function besideTheFloor(ctx: Ctx) {
  const tls = await ensureSelfSignedCertificate(join(ctx.stack.dataDir, 'tls'));
  for (const hit of CACHE_HITS) {
    const refusalsHere = hit.key === 'page' && want(4);
    if (!want(3) && !refusalsHere) continue;
    const request = cachedRequest(ctx, hit.params);
    const bodyBytes = await warmCache(ctx, request);
    log(`floor: bare Node HTTPS server, ${bodyBytes} bytes a response`);
    const server = await startHttpsFloor({ certFile: tls.certFile, keyFile: tls.keyFile, bodyBytes });
    const coalescing = await startHttpsFloor({ certFile: tls.certFile, keyFile: tls.keyFile, bodyBytes, coalesceWrites: true });
    const portOf = (s: { url: string }) => ({ port: Number(new URL(s.url).port) });
    try {
      if (want(3)) {
        const uncoalesced = { port: ctx.stack.edgePorts[1]! };
        const r = await loadBesideFloor(ctx, portOf(server), 3, hit.label, ctx.stack.demo.accessKey, request, portOf(coalescing), uncoalesced);
        results[`load_3_${hit.key}`] = { ...r, bodyBytes };
        const scenario = floorScenario(hit.key === 'page' ? '(3, 4)' : '(3)', bodyBytes);
        const coalesced = coalescingFloorScenario(bodyBytes);
        // The floor's rows go before the edge's two (3) rows, coalesced and not.
        rows.splice(
          rows.length - 4,
          0,
          { scenario, metric: 'requests/s', ours: round(r.floor.requestsPerSecond, 0) },
          { scenario, metric: 'p99 ms', ours: round(r.floor.p99Ms, 2) },
          { scenario: coalesced, metric: 'requests/s', ours: round(r.coalescedFloor!.requestsPerSecond, 0) },
          { scenario: coalesced, metric: 'p99 ms', ours: round(r.coalescedFloor!.p99Ms, 2) },
        );
      }
      if (refusalsHere) results.load_4 = await loadBesideFloor(ctx, portOf(server), 4, 'rejected requests (bad key)', 'ak_wrong', { url: ctx.url });
    } finally {
      await Promise.all([server.close(), coalescing.close()]);
    }
  }
}

async function memory(ctx: Ctx) {
  log('renderer memory over 1,000 renders');
  const renderer = ctx.stack.processes.find((p) => p.name.startsWith('renderer'))!;
  const total = quick ? 100 : 1_000;
  const r = await memoryScenario({ url: ctx.url, client: ctx.client, rendererPid: renderer.process.pid!, concurrency: 8, total, accessKeys: ctx.accessKeys });
  results.memory = r;
  rows.push({ scenario: '(7) renderer RSS after 10 renders', metric: 'MiB', ours: round(r.after10Kb / 1024) });
  rows.push({ scenario: `(7) renderer RSS after ${total} renders`, metric: 'MiB', ours: round(r.after1000Kb / 1024) });
  rows.push({ scenario: `(7) renderer RSS after ${total} renders, per slot (${SLOTS} slots)`, metric: 'MiB', ours: round(r.after1000Kb / 1024 / SLOTS) });
}

async function elementCapture(ctx: Ctx) {
  log('element capture and wait_for_selector against a plain screenshot, interleaved');
  const r = await elementCaptureScenario({ url: ctx.url, client: ctx.client, warmup: 3, runs: quick ? 10 : 60, selector: 'table', params: LIKE_BASELINE });
  results.element_capture = r;
  rows.push({ scenario: '(11) plain screenshot of the bench page (same run)', metric: 'p50 ms', ours: round(r.plain.p50) });
  rows.push({ scenario: '(11) screenshot with selector=table', metric: 'p50 ms', ours: round(r.selector.p50) });
  rows.push({ scenario: '(11) screenshot with selector=table', metric: 'p50 / plain p50', ours: round(r.selector.p50 / r.plain.p50, 2) });
  rows.push({ scenario: '(11) screenshot with wait_for_selector=table (there at load)', metric: 'p50 ms', ours: round(r.waitForSelector.p50) });
  rows.push({ scenario: '(11) screenshot with wait_for_selector=table (there at load)', metric: 'p50 / plain p50', ours: round(r.waitForSelector.p50 / r.plain.p50, 2) });

  const renderer = ctx.stack.processes.find((p) => p.name.startsWith('renderer'))!;
  for (const maxHeight of [16_384, 50_000]) {
    log(`a 60,000 px full page at full_page_max_height=${maxHeight}, timeout 30, in a row`);
    const tall = await tallPageScenario({
      url: ctx.url.replace(/\/bench$/, '/bench-tall'),
      client: ctx.client,
      rendererPid: renderer.process.pid!,
      runs: quick ? 3 : 10,
      params: { full_page_max_height: maxHeight, timeout: 30 },
    });
    results[`tall_page_${maxHeight}`] = tall;
    const scenario = `(11) 60,000 px full page, full_page_max_height ${maxHeight}, ${tall.renders.length} in a row`;
    rows.push({ scenario, metric: 'slowest answer ms (timeout 30 s)', ours: round(Math.max(...tall.renders.map((t) => t.ms))) });
    rows.push({ scenario, metric: 'answered 200', ours: tall.renders.filter((t) => t.status === 200).length });
    rows.push({ scenario, metric: 'renderer RSS before, MiB', ours: round(tall.beforeKb / 1024) });
    rows.push({ scenario, metric: 'renderer RSS 3 s after, MiB', ours: round(tall.afterKb / 1024) });
  }
}

/** (12) A scrape with 4 steps that sign in to a local site (the password from an account secret), beside a plain scrape of its form page. */
async function browserSteps(ctx: Ctx) {
  log('browser steps: a scrape with 4 steps that sign in against a plain scrape, interleaved');
  const password = `bench-${Date.now().toString(36)}`;
  const site = await startSignInSite({ user: 'ann', password, sessionMs: 3_600_000 });
  try {
    const secret = 'bench.password';
    const made = await ctx.client.call('/v1/secrets', { name: secret, value: password });
    if (made.status !== 201) throw new Error(`POST /v1/secrets answered ${made.status}${made.error ? `: ${made.error}` : ''}`);
    const r = await browserStepsScenario({ site, user: 'ann', secret, client: ctx.client, warmup: 3, runs: quick ? 10 : 30, params: LIKE_BASELINE });
    results.browser_steps = r;
    rows.push({ scenario: '(12) plain scrape of a sign-in page (same run)', metric: 'p50 ms', ours: round(r.plain.p50) });
    rows.push({ scenario: '(12) plain scrape of a sign-in page (same run)', metric: 'p99 ms', ours: round(r.plain.p99) });
    const scenario = '(12) scrape with 4 steps that sign in (type, type a secret, click, wait_for_selector)';
    rows.push({ scenario, metric: 'p50 ms', ours: round(r.steps.p50) });
    rows.push({ scenario, metric: 'p99 ms', ours: round(r.steps.p99) });
    rows.push({ scenario, metric: 'p50 / plain p50', ours: round(r.steps.p50 / r.plain.p50, 2) });
  } finally {
    await site.close();
  }
}

async function screencast(ctx: Ctx) {
  log('screencast: scroll recordings, then renderer memory over 100 screencasts');
  const renderer = ctx.stack.processes.find((p) => p.name.startsWith('renderer'))!;
  const r = await screencastScenario({
    url: ctx.url.replace(/\/bench$/, '/bench-long'),
    client: ctx.client,
    rendererPid: renderer.process.pid!,
    runs: quick ? 3 : 20,
    durationSeconds: 5,
    memoryRuns: 100,
  });
  results.screencast = r;
  const scenario = `(8) screencast scroll ${r.durationSeconds} s (mp4), one at a time`;
  rows.push({ scenario, metric: 'p50 ms', ours: round(r.p50Ms) });
  rows.push({ scenario, metric: 'overhead p50 ms (beyond duration)', ours: round(r.overheadP50Ms) });
  rows.push({ scenario: '(8) renderer RSS after 10 screencasts', metric: 'MiB', ours: round(r.memory.after10Kb / 1024) });
  rows.push({ scenario: `(8) renderer RSS after ${r.memory.screencasts} screencasts`, metric: 'MiB', ours: round(r.memory.afterAllKb / 1024) });
}

/** (6) The scheduler alone: no renderer runs, a recording subscriber sees the render jobs. */
async function scheduler(url: string, replicas: number) {
  log(`scheduler: starting a stack without renderers, ${replicas} scheduler replica(s)`);
  const leadMs = 40_000;
  const stack = await startTestStack({
    renderers: 0,
    schedulers: replicas,
    env: { ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'warn', SCHEDULER_PREPARE_LEAD_MS: String(leadMs), ...UNLIMITED },
  });
  try {
    const tasks = quick ? 1_000 : 10_000;
    const r = await schedulerScenario({ stack, tasks, accounts: tasks / 100, url, leadMs, log });
    results[`scheduler_${replicas}`] = r;
    const scenario = `(6) ${tasks} every_minute tasks of ${tasks / 100} accounts, ${replicas === 1 ? 'one scheduler' : `${replicas} scheduler replicas`}: due → job published`;
    rows.push({ scenario, metric: 'p50 ms', ours: round(r.p50Ms) });
    rows.push({ scenario, metric: 'p99 ms', ours: round(r.p99Ms) });
    rows.push({ scenario, metric: 'jobs in the minute', ours: r.jobs });
    rows.push({ scenario, metric: 'jobs published twice or early', ours: r.duplicates + r.early });
  } finally {
    await stack.stop();
  }
}

/** (9) Change monitoring: 1,000 every_minute visual monitors compared in their minute; no renderer (the scenario answers the jobs). */
async function monitoring(url: string) {
  log('monitoring: starting a stack without renderers');
  // Comparisons wait on the object store and the event store: 16 at a time in the scheduler.
  const stack = await startTestStack({ renderers: 0, env: { ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'warn', SCHEDULER_CONCURRENCY: '16', ...UNLIMITED } });
  try {
    const tasks = 1_000;
    const r = await monitoringScenario({ stack, tasks, serial: quick ? 10 : 30, url, log });
    results.monitoring = r;
    const burst = `(9) ${tasks} every_minute visual monitors (1280×1080 PNG), all changed, SCHEDULER_CONCURRENCY=16: due → compared`;
    rows.push({ scenario: burst, metric: 'p50 ms', ours: round(r.dueToComparedP50Ms) });
    rows.push({ scenario: burst, metric: 'p99 ms', ours: round(r.dueToComparedP99Ms) });
    rows.push({ scenario: burst, metric: 'compared in the minute', ours: r.comparedInMinute });
    const cost = `(9) one comparison at 1280×1080, in the scheduler (comparisons consumer): result in → change recorded`;
    rows.push({ scenario: cost, metric: 'p50 ms', ours: round(r.costP50Ms) });
    rows.push({ scenario: cost, metric: 'p99 ms', ours: round(r.costP99Ms) });
    const hook = '(9) change recorded → task.changed webhook received';
    rows.push({ scenario: hook, metric: 'p50 ms', ours: round(r.webhookP50Ms) });
    rows.push({ scenario: hook, metric: 'p99 ms', ours: round(r.webhookP99Ms) });
    rows.push({ scenario: hook, metric: 'webhooks (one per change)', ours: r.webhooks });
  } finally {
    await stack.stop();
  }
}

// A scenario group that throws does not take the others' figures with it: the run goes on, writes every row
// it measured, names what failed under the table, and exits non-zero.
const { attempt, failed, notMeasured } = scenarioAttempts(log);

const fixture = await startFixtureServer(BENCH_ROUTES);
const url = `${fixture.origin}/bench`;
try {
  if ([1, 2, 3, 4, 5, 7, 8, 11, 12].some(want)) await attempt('(1) to (5), (7), (8), (11), (12)', async () => {
    log('starting the stack');
    const stack = await startTestStack({
      renderers: 1,
      // (3) also measures a second edge whose writes are not coalesced (idle otherwise).
      edges: want(3) ? 2 : 1,
      edgeEnv: [{}, { EDGE_COALESCE_WRITES: '0' }],
      env: { ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'warn', RENDERER_CONCURRENCY: String(SLOTS), ...UNLIMITED },
    });
    const baselines = await startBaselines();
    const client = serviceClient({ baseUrl: `https://127.0.0.1:${stack.port}`, ca: stack.certPem, accessKey: stack.demo.accessKey });
    // One account: sharing is work-conserving, so an account alone may fill every slot (up to its plan).
    const ctx: Ctx = { url, stack, client, baselines, accessKeys: [stack.demo.accessKey] };
    try {
      // Each on the same stack; one that fails leaves the stack to the next.
      await attempt('(1) and (5)', () => latency(ctx));
      if (want(2)) await attempt('(2)', () => throughput(ctx));
      if (want(3) || want(4)) await attempt('(3) and (4)', () => besideTheFloor(ctx));
      if (want(7)) await attempt('(7)', () => memory(ctx));
      if (want(8)) await attempt('(8)', () => screencast(ctx));
      if (want(11)) await attempt('(11)', () => elementCapture(ctx));
      if (want(12)) await attempt('(12)', () => browserSteps(ctx));
    } finally {
      client.close();
      await baselines.close();
      await stack.stop();
    }
  });
  if (want(6)) await attempt('(6)', async () => {
    await scheduler(url, 1);
    await scheduler(url, 2);
  });
  if (want(9)) await attempt('(9)', () => monitoring(url));
  if (want(10)) await attempt('(10)', async () => {
    const env = { ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'warn', RENDERER_CONCURRENCY: String(SLOTS), ...UNLIMITED };
    const r = await natsClusterScenario({ url, env, renders: quick ? 10 : 30, loadSeconds: LOAD_SECONDS, sliceSeconds: SLICE_SECONDS, log });
    results.nats_cluster = r.result;
    rows.push(...r.rows);
  });
} finally {
  await fixture.close();
}

const table = [formatTable(rows), ...(failed.length ? ['', ...notMeasured()] : [])].join('\n');
console.log(table);
const dir = process.env.BENCH_RESULTS_DIR || join(REPO_ROOT, 'bench-results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'latest.json'), JSON.stringify({ ...results, ...(failed.length ? { failed } : {}), rows }, null, 2));
writeFileSync(join(dir, 'latest.md'), `${table}\n`);
// The README's table: each p50 with its p99, no empty column.
writeFileSync(join(dir, 'latest.compact.md'), `${formatTable(rows, { compact: true })}\n`);
// The README's targets: each bound the benchmark is held to, measured, met or missed by how much.
writeFileSync(join(dir, 'latest.targets.md'), `${formatTargets(judgeTargets(rows))}\n`);
log(`written to ${join(dir, 'latest.json')}`);
if (failed.length) {
  for (const f of failed) log(`not measured: ${f.scenarios} (${f.error})`);
  process.exitCode = 1;
}
