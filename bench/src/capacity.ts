/**
 * The figures of docs/scaling.md's capacity model, measured on one stack: CPU seconds of each service
 * (its whole process tree) per render, per cache hit and per refusal; NATS messages, JetStream API calls
 * and stream writes (KV buckets are KV_*, object stores OBJ_*) per operation; event-store rows per task
 * run; and one throughput point to check the model against. Run: `npm run build && node bench/dist/capacity.js`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { SchedulerServiceClient } from '@app/proto/scheduler';
import { callUnary } from '@app/rpc';
import { freePort, natsServerBinary } from '@app/stack';
import { startFixtureServer, startTestStack } from '@app/testkit';
import { eventRows, rowsDelta } from './capacity/event-rows.js';
import { natsCounts, perOperation } from './capacity/nats-monitor.js';
import { cpuByServiceSince, snapshotProcesses } from './capacity/process-cpu.js';
import { serviceClient } from './client.js';
import { BENCH_ROUTES } from './fixture-page.js';
import { runConcurrently } from './stats.js';

const UNLIMITED = { PLAN_SCALE_RATE_LIMIT: '100000000', PLAN_SCALE_QUOTA: '100000000', PLAN_SCALE_RENDERS_IN_FLIGHT: '1000' };
const TASKS = 20;
const log = (m: string) => console.error(`[capacity] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const fixture = await startFixtureServer(BENCH_ROUTES);
const url = `${fixture.origin}/bench`;
const natsDir = mkdtempSync(join(tmpdir(), 'capacity-nats-'));
const [natsPort, monitorPort] = [await freePort(), await freePort()];
const nats = spawn(natsServerBinary(), ['-js', '-sd', natsDir, '-a', '127.0.0.1', '-p', String(natsPort), '-m', String(monitorPort)], { stdio: 'ignore' });
const monitor = `http://127.0.0.1:${monitorPort}`;
for (let i = 0; i < 100 && !(await fetch(`${monitor}/healthz`).then((r) => r.ok, () => false)); i++) await sleep(100);

const stack = await startTestStack({
  natsUrl: `nats://127.0.0.1:${natsPort}`,
  renderers: 1,
  env: { ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'warn', RENDERER_CONCURRENCY: '4', SCHEDULER_PREPARE_LEAD_MS: '5000', EDGE_RENDER_START_TIMEOUT_MS: '60000', ...UNLIMITED },
});
const client = serviceClient({ baseUrl: `https://127.0.0.1:${stack.port}`, ca: stack.certPem, accessKey: stack.demo.accessKey });
const stores = { 'auth-quota': join(stack.dataDir, 'auth-quota-events.db'), scheduler: join(stack.dataDir, 'scheduler-events.db') };
const results: Record<string, unknown> = { date: new Date().toISOString(), cores: cpus().length, loadAverageAtStart: loadavg() };

/** Runs `fn` (`operations` of them), waits for what it set off to settle, and records what each cost. */
async function measure(name: string, operations: number, fn: () => Promise<unknown>, settleMs = 2_000) {
  const before = { processes: snapshotProcesses(), nats: await natsCounts(monitor), rows: Object.fromEntries(Object.entries(stores).map(([s, p]) => [s, eventRows(p)])) };
  const start = performance.now();
  await fn();
  const seconds = (performance.now() - start) / 1000;
  await sleep(settleMs);
  const after = { cpu: cpuByServiceSince(before.processes), nats: await natsCounts(monitor), rows: Object.fromEntries(Object.entries(stores).map(([s, p]) => [s, eventRows(p)])) };
  const r = {
    operations,
    seconds: Number(seconds.toFixed(2)),
    perSecond: Number((operations / seconds).toFixed(1)),
    cpuMsPerOperation: Object.fromEntries(Object.entries(after.cpu).map(([s, c]) => [s, Number(((c * 1000) / operations).toFixed(2))])),
    nats: perOperation(before.nats, after.nats, operations),
    eventStore: Object.fromEntries(Object.keys(stores).map((s) => [s, rowsDelta(before.rows[s]!, after.rows[s]!, operations)])),
    loadAverage: loadavg().map((n) => Number(n.toFixed(2))),
  };
  results[name] = r;
  log(`${name}: ${JSON.stringify(r)}`);
}

class Done extends Error {}
type Measured = { seconds: number; cpuMsPerOperation: Record<string, number>; nats: { inMsgs: number; outMsgs: number } };

/** The model: CPU and NATS messages of a mix are the sums of each operation's (idle activity over the mix's duration added). */
function predictMix(mix: { renders: number; hits: number; refusals: number }) {
  const [idle, render, hit, refusal, measured] = ['idle_per_second', 'render_concurrency_4', 'cache_hit_concurrency_32', 'refusal_concurrency_32', 'mix'].map(
    (k) => results[k] as Measured,
  ) as [Measured, Measured, Measured, Measured, Measured];
  // Each per-operation figure holds the idle activity of its own duration: take it out, then add the mix's.
  const net = (m: Measured, ops: number, pick: (x: Measured) => number) => pick(m) - (pick(idle) * m.seconds) / ops;
  const add = (pick: (x: Measured) => number) =>
    mix.renders * net(render, 60, pick) + mix.hits * net(hit, 3000, pick) + mix.refusals * net(refusal, 3000, pick) + pick(idle) * measured.seconds;
  const services = Object.keys(measured.cpuMsPerOperation);
  return {
    cpuMs: Object.fromEntries(services.map((s) => [s, Math.round(add((x) => x.cpuMsPerOperation[s] ?? 0))])),
    inMsgs: Math.round(add((x) => x.nats.inMsgs)),
    outMsgs: Math.round(add((x) => x.nats.outMsgs)),
  };
}

let n = 0;
const render = () => client.render('screenshot', { url: `${url}?n=${n++}` });
try {
  log('warming up');
  await runConcurrently(8, 1, render);
  // What the services do with nothing to do (pull requests, heartbeats, sweeps): per second.
  await measure('idle_per_second', 20, () => sleep(20_000), 0);
  await measure('render_one_at_a_time', 40, () => runConcurrently(40, 1, render));
  // The renderer's whole concurrency busy: the throughput point the model is checked against.
  await measure('render_concurrency_4', 60, () => runConcurrently(60, 4, render));

  const hit = { url, cache: true, cache_ttl: 3600 };
  await client.call('/v1/screenshot', hit);
  await measure('cache_hit_concurrency_32', 3000, () => runConcurrently(3000, 32, () => client.call('/v1/screenshot', hit)));
  await measure('refusal_concurrency_32', 3000, () => runConcurrently(3000, 32, () => client.call('/v1/screenshot', hit, 'not-a-key')));

  // The check: a mix of the three at once costs what the model adds up from the figures above.
  const mix = { renders: 20, hits: 1500, refusals: 1500 };
  await measure('mix', 1, () =>
    Promise.all([
      runConcurrently(mix.renders, 4, render),
      runConcurrently(mix.hits, 16, () => client.call('/v1/screenshot', hit)),
      runConcurrently(mix.refusals, 16, () => client.call('/v1/screenshot', hit, 'not-a-key')),
    ]),
  );
  results['mix_predicted'] = predictMix(mix);
  log(`mix predicted: ${JSON.stringify(results['mix_predicted'])}`);
  if (process.env.CAPACITY_TASKS === '0') throw new Done();

  log(`creating ${TASKS} every_minute tasks`);
  const auth = new AuthQuotaServiceClient(stack.authQuotaAddress, credentials.createInsecure());
  const scheduler = new SchedulerServiceClient(stack.schedulerAddress, credentials.createInsecure());
  const accountId = (await callUnary(auth, auth.authenticate, { access_key: stack.demo.accessKey })).account!.account_id;
  for (let i = 0; i < TASKS; i++) {
    await callUnary(scheduler, scheduler.createTask, { account_id: accountId, name: `capacity-${i}`, api: 'screenshot', query: `url=${encodeURIComponent(`${url}?task=${i}`)}`, frequency: 'every_minute' });
  }
  // One minute's runs: prepared 5 s before the minute, rendered after it; the next minute's are prepared 55 s later.
  const due = Math.ceil((Date.now() + 10_000) / 60_000) * 60_000;
  await measure('task_run', TASKS, () => sleep(due + 30_000 - Date.now()), 0);
  auth.close();
  scheduler.close();
} catch (err) {
  if (!(err instanceof Done)) throw err;
} finally {
  client.close();
  await stack.stop();
  nats.kill('SIGTERM');
  await fixture.close();
  rmSync(natsDir, { recursive: true, force: true });
}
console.log(JSON.stringify(results, null, 2));
