import { credentials } from '@grpc/grpc-js';
import { connect } from '@nats-io/transport-node';
import { RenderJob } from '@app/proto/render';
import { SchedulerServiceClient } from '@app/proto/scheduler';
import type { Stack } from '@app/stack';
import { percentile } from '../stats.js';
import { benchAccounts, createTasks } from '../bench-tasks.js';

export interface SchedulerResult {
  tasks: number;
  jobs: number;
  /** Jobs published again for a run already published (exactly once: 0). */
  duplicates: number;
  /** Jobs published before the due instant (never: 0). */
  early: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  createSeconds: number;
}

/**
 * `tasks` every_minute tasks spread evenly over `accounts` accounts of the scale plan (a platform's
 * tasks belong to many accounts; one account's renders in flight are bounded); no renderer runs, a
 * recording subscriber sees each render job as it is published. The figure is the delay between the
 * minute's due instant and the job's publication.
 */
export async function schedulerScenario(opts: {
  stack: Stack;
  tasks: number;
  accounts: number;
  url: string;
  leadMs: number;
  log: (m: string) => void;
}): Promise<SchedulerResult> {
  const { stack } = opts;
  const scheduler = new SchedulerServiceClient(stack.schedulerAddress, credentials.createInsecure());
  const nc = await connect({ servers: stack.natsUrl });
  try {
    const accountIds = await benchAccounts(stack, opts.accounts, 'bench');
    const createStart = performance.now();
    await createTasks(scheduler, opts.tasks, (i) => ({
      account_id: accountIds[i % accountIds.length]!,
      name: `bench-${i}`,
      api: 'screenshot',
      query: `url=${encodeURIComponent(opts.url)}`,
      frequency: 'every_minute',
    }));
    const createSeconds = (performance.now() - createStart) / 1000;
    opts.log(`created ${opts.tasks} tasks of ${accountIds.length} accounts in ${createSeconds.toFixed(1)} s`);

    // Measure the first whole minute after every task exists that leaves the scheduler its lead time
    // (runs are prepared up to SCHEDULER_PREPARE_LEAD_MS ahead, 40 s by default).
    const due = Math.ceil((Date.now() + opts.leadMs + 5_000) / 60_000) * 60_000;
    const delays: number[] = [];
    const runs = new Set<string>();
    let published = 0;
    let early = 0;
    const sub = nc.subscribe('renderer.job.requested', {
      callback: (_err, msg) => {
        const arrived = Date.now();
        const job = RenderJob.decode(msg.data);
        // Only the runs of the measured minute (run id: <task>-<unix seconds of the occurrence>).
        if (job.origin !== 'task' || !job.run_id?.endsWith(`-${due / 1000}`)) return;
        if (arrived < due) return void early++;
        published++;
        // Each publication counts once per run: a second one of the same run is a duplicate, not a job.
        if (runs.has(job.run_id ?? '')) return;
        runs.add(job.run_id ?? '');
        delays.push(arrived - due);
      },
    });
    opts.log(`waiting for ${new Date(due).toISOString()}`);
    const deadline = due + 55_000;
    while (Date.now() < deadline && delays.length < opts.tasks) await new Promise((r) => setTimeout(r, 250));
    // Anything published after the last job counts against exactly once too.
    await new Promise((r) => setTimeout(r, 2_000));
    sub.unsubscribe();
    // A task whose job never came (in the minute) counts as infinitely late.
    delays.splice(opts.tasks);
    for (let i = 0; i < delays.length; i++) if (delays[i]! > 60_000) delays[i] = Number.POSITIVE_INFINITY;
    while (delays.length < opts.tasks) delays.push(Number.POSITIVE_INFINITY);
    return {
      tasks: opts.tasks,
      jobs: delays.filter(Number.isFinite).length,
      duplicates: published - runs.size,
      early,
      p50Ms: percentile(delays, 50),
      p99Ms: percentile(delays, 99),
      maxMs: delays.reduce((m, d) => Math.max(m, d), 0),
      createSeconds,
    };
  } finally {
    scheduler.close();
    await nc.close();
  }
}
