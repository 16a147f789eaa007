import { credentials } from '@grpc/grpc-js';
import { connect } from '@nats-io/transport-node';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { RenderJob } from '@app/proto/render';
import { SchedulerServiceClient } from '@app/proto/scheduler';
import { callUnary } from '@app/rpc';
import type { Stack } from '@app/stack';
import { percentile, runConcurrently } from '../stats.js';

export interface SchedulerResult {
  tasks: number;
  jobs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  createSeconds: number;
}

/**
 * `tasks` every_minute tasks; no renderer runs, a recording subscriber sees each render job as it is
 * published. The figure is the delay between the minute's due instant and the job's publication.
 */
export async function schedulerScenario(opts: { stack: Stack; tasks: number; url: string; log: (m: string) => void }): Promise<SchedulerResult> {
  const { stack } = opts;
  const auth = new AuthQuotaServiceClient(stack.authQuotaAddress, credentials.createInsecure());
  const scheduler = new SchedulerServiceClient(stack.schedulerAddress, credentials.createInsecure());
  const nc = await connect({ servers: stack.natsUrl });
  try {
    const accountId = (await callUnary(auth, auth.authenticate, { access_key: stack.demo.accessKey })).account!.account_id;
    const createStart = performance.now();
    await runConcurrently(opts.tasks, 16, (i) =>
      callUnary(
        scheduler,
        scheduler.createTask,
        { account_id: accountId, name: `bench-${i}`, api: 'screenshot', query: `url=${encodeURIComponent(opts.url)}`, frequency: 'every_minute' },
        { timeoutMs: 30_000 },
      ),
    );
    const createSeconds = (performance.now() - createStart) / 1000;
    opts.log(`created ${opts.tasks} tasks in ${createSeconds.toFixed(1)} s`);

    // Measure the first whole minute after every task exists.
    const due = Math.ceil((Date.now() + 1_000) / 60_000) * 60_000;
    const delays: number[] = [];
    const sub = nc.subscribe('renderer.job.requested', {
      callback: (_err, msg) => {
        const arrived = Date.now();
        if (arrived < due) return;
        const job = RenderJob.decode(msg.data);
        if (job.origin === 'task') delays.push(arrived - due);
      },
    });
    opts.log(`waiting for ${new Date(due).toISOString()}`);
    const deadline = due + 55_000;
    while (Date.now() < deadline && delays.length < opts.tasks) await new Promise((r) => setTimeout(r, 250));
    sub.unsubscribe();
    // A task whose job never came counts as infinitely late.
    while (delays.length < opts.tasks) delays.push(Number.POSITIVE_INFINITY);
    return {
      tasks: opts.tasks,
      jobs: delays.filter(Number.isFinite).length,
      p50Ms: percentile(delays, 50),
      p99Ms: percentile(delays, 99),
      maxMs: delays.reduce((m, d) => Math.max(m, d), 0),
      createSeconds,
    };
  } finally {
    auth.close();
    scheduler.close();
    await nc.close();
  }
}
