import { credentials } from '@grpc/grpc-js';
import sharp from 'sharp';
import { BUCKETS, Objm, SUBJECTS, connectNats, jetstream } from '@app/messaging';
import { encodeResultMeta } from '@app/render-contracts';
import { RenderFinished, RenderJob } from '@app/proto/render';
import { SchedulerServiceClient, TaskChangedEvent, TaskMonitor } from '@app/proto/scheduler';
import type { Stack } from '@app/stack';
import { startWebhookReceiver } from '@app/testkit';
import { percentile } from '../stats.js';
import { benchAccounts, createTasks } from '../bench-tasks.js';
import { snapshotProcesses, useByServiceSince } from '../capacity/process-cpu.js';

export interface MonitoringResult {
  tasks: number;
  /** Runs of the measured minute compared (changed) before the minute was over. */
  comparedInMinute: number;
  /** Due instant → comparison recorded, every task of the minute (the burst). */
  dueToComparedP50Ms: number;
  dueToComparedP99Ms: number;
  /** One comparison at a time (no queue), on the third minute: the run's RenderFinished published → its comparison recorded. */
  serial: number;
  costP50Ms: number;
  costP99Ms: number;
  /** Comparison recorded → task.changed webhook received. */
  webhooks: number;
  webhookP50Ms: number;
  webhookP99Ms: number;
}

const WIDTH = 1280;
const HEIGHT = 1080;

/** A 1280×1080 page screenshot: text-like bars, and a price box whose colour is the variant's. */
async function screenshot(variant: number): Promise<Buffer> {
  const bars = Array.from({ length: 30 }, (_, i) => ({
    input: { create: { width: 400 + ((i * 137) % 600), height: 14, channels: 4 as const, background: '#333333' } },
    left: 60,
    top: 60 + i * 32,
  }));
  const box = { input: { create: { width: 220, height: 80, channels: 4 as const, background: variant === 0 ? '#dddddd' : '#ffcc00' } }, left: 980, top: 400 };
  return sharp({ create: { width: WIDTH, height: HEIGHT, channels: 4, background: '#ffffff' } }).composite([...bars, box]).png().toBuffer();
}

/**
 * (9) `tasks` every_minute visual monitoring tasks (no renderer: this scenario plays it, answering each
 * render job with a 1280×1080 PNG in the render-results store and its RenderFinished). The first minute
 * is every task's baseline; on the second every page changed, so every run is compared in full, a change
 * recorded and its task.changed webhook sent to a local receiver: its runs are answered all at once, as soon
 * as they are out. On the third minute the pages change back and `serial` runs are answered one at a time,
 * each after the previous one's comparison: their time is the comparison's cost (its other runs are left
 * unanswered). The one-at-a-time runs once went first in the second minute, which held the others back for
 * about 6 s while the machine was mostly idle.
 */
export async function monitoringScenario(opts: { stack: Stack; tasks: number; serial: number; url: string; log: (m: string) => void }): Promise<MonitoringResult> {
  const { stack } = opts;
  const scheduler = new SchedulerServiceClient(stack.schedulerAddress, credentials.createInsecure());
  const receiver = await startWebhookReceiver({ secret: () => 'not-verified-here' });
  const nc = await connectNats({ servers: stack.natsUrl, name: 'bench-monitoring' });
  const js = jetstream(nc);
  const objects = await new Objm(nc).open(BUCKETS.renderResults.name);
  const pages = [await screenshot(0), await screenshot(1)];
  try {
    const accountIds = await benchAccounts(stack, Math.max(1, Math.ceil(opts.tasks / 100)), 'bench-monitor');
    const query = `url=${encodeURIComponent(opts.url)}&format=png&webhook_url=${encodeURIComponent(`${receiver.url}/changed`)}`;
    await createTasks(scheduler, opts.tasks, (i) => ({
      account_id: accountIds[i % accountIds.length]!,
      name: `monitor-${i}`,
      api: 'screenshot',
      query,
      frequency: 'every_minute',
      files_base_url: 'https://bench.invalid/v1/files/',
      monitor: TaskMonitor.fromPartial({ mode: 'visual', confirm: false }),
    }));
    opts.log(`created ${opts.tasks} monitoring tasks`);

    const finishedAt = new Map<string, number>();
    const comparedAt = new Map<string, number>();
    const render = async (job: RenderJob, variant: number) => {
      const name = job.placement!.object_name;
      const now = Date.now();
      const expires = now + 86_400_000;
      const meta = encodeResultMeta({ accountId: job.account_id, expiresUnixMs: expires, contentType: 'image/png', extension: 'png', kind: 'file', headers: {} });
      await objects.putBlob({ name, metadata: meta }, pages[variant]!);
      const event = RenderFinished.fromPartial({
        ...job,
        status: 'succeeded',
        started_unix_ms: now,
        finished_unix_ms: Date.now(),
        renderer_id: 'bench-monitoring',
        result: { object_name: name, content_type: 'image/png', extension: 'png', size: pages[variant]!.length, headers: {}, expires_unix_ms: expires },
      });
      finishedAt.set(job.run_id!, Date.now());
      await js.publish(SUBJECTS.renderEvent('task', 'finished', job.job_id), RenderFinished.encode(event).finish(), { msgID: `finished:${job.job_id}` });
    };

    // Minute 1: baselines, answered as they come. Minute 2: every page changed; its jobs are gathered and
    // answered at once. Minute 3: the first `serial` jobs answered one at a time, each after the previous comparison.
    const first = Math.ceil((Date.now() + 5_000) / 60_000) * 60_000;
    const second = first + 60_000;
    const third = second + 60_000;
    const held: RenderJob[] = [];
    const serialJobs: RenderJob[] = [];
    const jobs = nc.subscribe(SUBJECTS.renderJobRequested, {
      callback: (_err, msg) => {
        const job = RenderJob.decode(msg.data);
        if (job.origin !== 'task' || !job.run_id) return;
        if (job.run_id.endsWith(`-${second / 1000}`)) return void held.push(job);
        if (job.run_id.endsWith(`-${third / 1000}`)) return void serialJobs.push(job);
        if (!job.run_id.endsWith(`-${first / 1000}`)) return;
        void render(job, 0).catch((err: unknown) => opts.log(`answering a job failed: ${String(err)}`));
      },
    });
    const changes = nc.subscribe(SUBJECTS.taskChanged, {
      callback: (_err, msg) => {
        const e = TaskChangedEvent.decode(msg.data);
        comparedAt.set(e.run_id, e.changed_unix_ms);
      },
    });
    opts.log(`baselines at ${new Date(first).toISOString()}, changes at ${new Date(second).toISOString()}`);
    const deadline = second + 60_000;
    while (Date.now() < second) await new Promise((r) => setTimeout(r, 20));
    const atDue = snapshotProcesses();
    const answered: Promise<void>[] = [];
    while (Date.now() < second + 10_000 && answered.length < opts.tasks) {
      for (const job of held.slice(answered.length)) {
        answered.push(render(job, 1).catch((err: unknown) => opts.log(`answering a job failed: ${String(err)}`)));
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await Promise.all(answered);
    opts.log(`${held.length} jobs of the changed minute out and answered ${Date.now() - second} ms after it began`);
    const burst = () => held.filter((job) => comparedAt.has(job.run_id!)).length;
    while (Date.now() < deadline && burst() < opts.tasks) await new Promise((r) => setTimeout(r, 250));
    const use = Object.entries(useByServiceSince(atDue))
      .sort((a, b) => b[1].cpu - a[1].cpu)
      .map(([service, { cpu, minorFaults }]) => `${service} ${cpu.toFixed(1)} s (${minorFaults.toLocaleString('en')} page faults)`);
    opts.log(`CPU from the due minute to the last comparison (${Date.now() - second} ms): ${use.join(', ')}`);
    const dueToCompared = held.map((job) => comparedAt.get(job.run_id!)).flatMap((t) => (t === undefined ? [] : [t - second]));
    await new Promise((r) => setTimeout(r, 5_000)); // the last webhooks
    const hooks = [...receiver.received];
    opts.log(`${held.length} changed runs answered; ${dueToCompared.length} changes recorded; ${hooks.length} webhooks`);

    const costs: number[] = [];
    while (Date.now() < third + 10_000 && serialJobs.length < opts.serial) await new Promise((r) => setTimeout(r, 100));
    for (const job of serialJobs.slice(0, opts.serial)) {
      await render(job, 0);
      while (!comparedAt.has(job.run_id!) && Date.now() < third + 60_000) await new Promise((r) => setTimeout(r, 2));
      const recorded = comparedAt.get(job.run_id!);
      if (recorded !== undefined) costs.push(recorded - finishedAt.get(job.run_id!)!);
    }
    opts.log(`${costs.length} answered one at a time on the third minute`);
    jobs.unsubscribe();
    changes.unsubscribe();

    while (dueToCompared.length < opts.tasks) dueToCompared.push(Number.POSITIVE_INFINITY);
    const webhookDelays = hooks.map((w) => {
      const body = JSON.parse(w.body) as { run_id: string };
      return w.at - (comparedAt.get(body.run_id) ?? w.at);
    });
    return {
      tasks: opts.tasks,
      comparedInMinute: dueToCompared.filter((d) => d < 60_000).length,
      dueToComparedP50Ms: percentile(dueToCompared, 50),
      dueToComparedP99Ms: percentile(dueToCompared, 99),
      serial: costs.length,
      costP50Ms: percentile(costs, 50),
      costP99Ms: percentile(costs, 99),
      webhooks: new Set(hooks.map((w) => w.headers['webhook-id'])).size,
      webhookP50Ms: percentile(webhookDelays, 50),
      webhookP99Ms: percentile(webhookDelays, 99),
    };
  } finally {
    scheduler.close();
    await receiver.close();
    await nc.close();
  }
}
