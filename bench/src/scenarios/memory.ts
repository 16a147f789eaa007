import { readFileSync, readdirSync } from 'node:fs';
import type { ServiceClient } from '../client.js';
import { runConcurrently } from '../stats.js';

/** Resident memory (kB) of a process and all its descendants (the renderer and its Chromium). */
export function treeRssKb(rootPid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // the process ended meanwhile
    }
  }
  let total = 0;
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      continue;
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

export interface MemoryResult {
  after10Kb: number;
  after1000Kb: number;
}

/** Renderer memory after 10 renders and after 1,000 (browser recycling keeps it flat). */
export async function memoryScenario(opts: {
  url: string;
  client: ServiceClient;
  rendererPid: number;
  concurrency: number;
  total: number;
  /** The accounts the clients render for, one per client in turn (ServiceClient.rendersFor). */
  accessKeys?: string[];
}): Promise<MemoryResult> {
  const render = opts.client.rendersFor(opts.accessKeys, 'screenshot', { url: opts.url });
  await runConcurrently(10, 1, render);
  await new Promise((r) => setTimeout(r, 2_000));
  const after10Kb = treeRssKb(opts.rendererPid);
  await runConcurrently(opts.total - 10, opts.concurrency, render);
  await new Promise((r) => setTimeout(r, 2_000));
  return { after10Kb, after1000Kb: treeRssKb(opts.rendererPid) };
}
