// npm run bench: the service against the raw-browser limit on the same machine, in the same run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@app/stack';
import { startFixtureServer, startTestStack } from '@app/testkit';
import { startBaselines } from './baselines.js';
import { serviceClient } from './client.js';
import { BENCH_ROUTES } from './fixture-page.js';
import { latencyScenario } from './scenarios/latency.js';
import { throughputScenario } from './scenarios/throughput.js';
import { httpLoad } from './scenarios/http-load.js';
import { memoryScenario } from './scenarios/memory.js';
import { schedulerScenario } from './scenarios/scheduler.js';
import { round } from './stats.js';
import { formatTable, type Row } from './report.js';

const quick = process.env.BENCH_QUICK === '1';
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

const fixture = await startFixtureServer(BENCH_ROUTES);
const url = `${fixture.origin}/bench`;
log('starting the stack');
const stack = await startTestStack({
  renderers: 1,
  env: {
    ALLOW_PRIVATE_TARGETS: '1',
    LOG_LEVEL: 'warn',
    RENDERER_CONCURRENCY: '8',
    PLAN_SCALE_RATE_LIMIT: '100000000',
    PLAN_SCALE_QUOTA: '100000000',
  },
});
const baselines = await startBaselines();
const client = serviceClient({ baseUrl: `https://127.0.0.1:${stack.port}`, ca: stack.certPem, accessKey: stack.demo.accessKey });
const rows: Row[] = [];
const results: Record<string, unknown> = { date: new Date().toISOString(), machine: { cores: (await import('node:os')).cpus().length } };

try {
  for (const operation of ['screenshot', 'pdf', 'scrape'] as const) {
    log(`latency: ${operation}`);
    const r = await latencyScenario({ operation, url, client, baselines, warmup: 5, runs: quick ? 10 : operation === 'screenshot' ? 60 : 30 });
    results[`latency_${operation}`] = r;
    const scenario = operation === 'screenshot' ? '(1) screenshot, one at a time' : `(5) ${operation}, one at a time`;
    rows.push({ scenario, metric: 'p50 ms', ours: round(r.ours.p50), a: round(r.freshContext.p50), b: round(r.reusedPage.p50) });
    rows.push({ scenario, metric: 'p99 ms', ours: round(r.ours.p99), a: round(r.freshContext.p99), b: round(r.reusedPage.p99) });
  }

  for (const concurrency of [4, 8]) {
    log(`throughput at concurrency ${concurrency}`);
    const r = await throughputScenario({ url, client, baselines, concurrency, renders: quick ? 16 : 64, rounds: 3 });
    results[`throughput_c${concurrency}`] = r;
    rows.push({ scenario: `(2) screenshots, concurrency ${concurrency}`, metric: 'renders/s', ours: round(r.ours, 2), a: round(r.freshContext, 2), higherIsBetter: true });
  }

  log('cache hits');
  const cached = { url, cache: true, cache_ttl: 3600 };
  const prime = await client.call('/v1/screenshot', cached);
  const check = await client.call('/v1/screenshot', cached);
  if (prime.status !== 200 || check.headers['x-service-cache'] !== 'HIT') throw new Error(`cache not hit (${check.status} ${String(check.headers['x-service-cache'])})`);
  const hits = await httpLoad({
    url: `https://127.0.0.1:${stack.port}/v1/screenshot`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-access-key': stack.demo.accessKey },
    body: JSON.stringify(cached),
    connections: 32,
    seconds: quick ? 3 : 10,
  });
  results.cacheHits = hits;
  rows.push({ scenario: '(3) cache hits over HTTPS', metric: 'requests/s', ours: round(hits.requestsPerSecond, 0), higherIsBetter: true });
  rows.push({ scenario: '(3) cache hits over HTTPS', metric: 'p99 ms', ours: round(hits.p99Ms, 2) });

  log('rejected requests (bad key)');
  const rejected = await httpLoad({
    url: `https://127.0.0.1:${stack.port}/v1/screenshot`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-access-key': 'ak_wrong' },
    body: JSON.stringify({ url }),
    connections: 32,
    seconds: quick ? 3 : 10,
  });
  results.rejected = rejected;
  rows.push({ scenario: '(4) rejected requests (bad key)', metric: 'requests/s', ours: round(rejected.requestsPerSecond, 0), higherIsBetter: true });
  rows.push({ scenario: '(4) rejected requests (bad key)', metric: 'p99 ms', ours: round(rejected.p99Ms, 2) });

  const renderer = stack.processes.find((p) => p.name.startsWith('renderer'))!;
  log('renderer memory over 1,000 renders');
  const memory = await memoryScenario({ url, client, rendererPid: renderer.process.pid!, concurrency: 8, total: quick ? 100 : 1_000 });
  results.memory = memory;
  rows.push({ scenario: '(7) renderer RSS after 10 renders', metric: 'MiB', ours: round(memory.after10Kb / 1024) });
  rows.push({ scenario: `(7) renderer RSS after ${quick ? 100 : 1000} renders`, metric: 'MiB', ours: round(memory.after1000Kb / 1024) });
} finally {
  client.close();
  await baselines.close();
  await stack.stop();
}

// (6) The scheduler alone: no renderer, a recording subscriber sees the render jobs.
try {
  log('scheduler: starting a stack without renderers');
  const schedulerStack = await startTestStack({
    renderers: 0,
    env: { ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'warn', PLAN_SCALE_RATE_LIMIT: '100000000', PLAN_SCALE_QUOTA: '100000000' },
  });
  try {
    const tasks = quick ? 1_000 : 10_000;
    const r = await schedulerScenario({ stack: schedulerStack, tasks, url, log });
    results.scheduler = r;
    rows.push({ scenario: `(6) ${tasks} every_minute tasks: due → job published`, metric: 'p50 ms', ours: round(r.p50Ms) });
    rows.push({ scenario: `(6) ${tasks} every_minute tasks: due → job published`, metric: 'p99 ms', ours: round(r.p99Ms) });
    rows.push({ scenario: `(6) ${tasks} every_minute tasks: jobs published in the minute`, metric: 'count', ours: r.jobs });
  } finally {
    await schedulerStack.stop();
  }
} finally {
  await fixture.close();
}

const table = formatTable(rows);
console.log(table);
const dir = join(REPO_ROOT, 'bench-results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'latest.json'), JSON.stringify({ ...results, rows }, null, 2));
writeFileSync(join(dir, 'latest.md'), `${table}\n`);
log(`written to ${join(dir, 'latest.json')}`);
