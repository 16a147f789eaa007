import type { Baselines, ImageType } from '../baselines.js';
import type { ServiceClient } from '../client.js';
import { runConcurrently } from '../stats.js';
import { cpuByServiceSince, machineBusySeconds, snapshotProcesses } from '../capacity/process-cpu.js';

export interface ThroughputResult {
  concurrency: number;
  ours: number;
  freshContext: number;
  /**
   * CPU milliseconds a render, over every round of each side: the machine's, and each process's: each
   * service's own, a renderer's browser apart from it, (a)'s browser, and the bench process (its clients,
   * the fixture site, (a)'s Puppeteer).
   */
  cpuMsPerRender: { ours: CpuPerRender; freshContext: CpuPerRender };
}

export interface CpuPerRender {
  machine: number;
  byService: Record<string, number>;
}

/** CPU seconds added up over runs: the machine's, and each service's. */
type CpuTotals = { machine: number; byService: Record<string, number> };

/** Runs `run` and adds the CPU it took (the machine's, each service's) to `into`. */
async function measured(into: CpuTotals, run: () => Promise<number>): Promise<number> {
  const [machine, processes] = [machineBusySeconds(), snapshotProcesses()];
  const ms = await run();
  into.machine += machineBusySeconds() - machine;
  for (const [service, seconds] of Object.entries(cpuByServiceSince(processes, process.pid, { browsersApart: true }))) into.byService[service] = (into.byService[service] ?? 0) + seconds;
  return ms;
}

const perRender = (total: CpuTotals, renders: number): CpuPerRender => ({
  machine: Math.round((total.machine * 1000) / renders),
  byService: Object.fromEntries(Object.entries(total.byService).map(([service, seconds]) => [service, Math.round((seconds * 1000) / renders)])),
});

/** Screenshots per second at a fixed concurrency, ours and baseline (a) alternately, best of `rounds`. */
export async function throughputScenario(opts: {
  url: string;
  client: ServiceClient;
  baselines: Baselines;
  concurrency: number;
  renders: number;
  rounds: number;
  params?: Record<string, unknown>;
  /** The accounts the clients render for, one per client in turn (ServiceClient.rendersFor). */
  accessKeys?: string[];
}): Promise<ThroughputResult> {
  const ours = opts.client.rendersFor(opts.accessKeys, 'screenshot', { url: opts.url, ...opts.params });
  // Baseline (a) captures the same format: a png as Puppeteer encodes it by default.
  const image: ImageType = opts.params?.format === 'png' ? 'png' : 'jpeg';
  const fresh = () => opts.baselines.freshContext(opts.url, 'screenshot', image);
  const oursRates: number[] = [];
  const freshRates: number[] = [];
  const oursCpu: CpuTotals = { machine: 0, byService: {} };
  const freshCpu: CpuTotals = { machine: 0, byService: {} };
  // Warm-up at the same concurrency.
  await runConcurrently(opts.concurrency, opts.concurrency, ours);
  await runConcurrently(opts.concurrency, opts.concurrency, fresh);
  for (let r = 0; r < opts.rounds; r++) {
    const a = await measured(oursCpu, () => runConcurrently(opts.renders, opts.concurrency, ours));
    const b = await measured(freshCpu, () => runConcurrently(opts.renders, opts.concurrency, fresh));
    oursRates.push((opts.renders * 1000) / a);
    freshRates.push((opts.renders * 1000) / b);
  }
  const sorted = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
  const renders = opts.renders * opts.rounds;
  return {
    concurrency: opts.concurrency,
    ours: sorted(oursRates),
    freshContext: sorted(freshRates),
    cpuMsPerRender: { ours: perRender(oursCpu, renders), freshContext: perRender(freshCpu, renders) },
  };
}
