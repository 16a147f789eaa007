import { readFileSync } from 'node:fs';
import type { Stack } from '@app/stack';

/** Linux counts a process's CPU time in clock ticks of 1/100 s (USER_HZ). */
const TICKS_PER_SECOND = 100;

interface ProcessUse {
  /** CPU seconds, every thread, user and system. */
  cpuSeconds: number;
  /** Pages the kernel had to map in on first touch (minor faults): freshly allocated memory. */
  minorFaults: number;
}

/** What a process has used so far, or undefined once it is gone. */
function useOf(pid: number | undefined): ProcessUse | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): minflt is the 8th, utime and stime the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND, minorFaults: Number(fields[7]) };
  } catch {
    return undefined;
  }
}

/** What each process of the stack (and this benchmark) has used so far, by name. */
export function stackUse(stack: Stack): Map<string, ProcessUse> {
  const out = new Map<string, ProcessUse>();
  const add = (name: string, use: ProcessUse | undefined) => use !== undefined && out.set(name, use);
  for (const p of stack.processes) add(p.name, useOf(p.process.pid));
  stack.natsServers.forEach((n, i) => add(stack.natsServers.length > 1 ? `nats-${i + 1}` : 'nats', useOf(n.process?.pid)));
  const own = process.cpuUsage();
  add('bench', { cpuSeconds: (own.user + own.system) / 1e6, minorFaults: process.resourceUsage().minorPageFault });
  return out;
}

/** What each process used between two readings, busiest first: "scheduler 31.2 s (120,400 faults), …". */
export function useBetween(before: Map<string, ProcessUse>, after: Map<string, ProcessUse>): string {
  return [...after]
    .map(([name, use]) => {
      const was = before.get(name) ?? { cpuSeconds: 0, minorFaults: 0 };
      return { name, cpuSeconds: use.cpuSeconds - was.cpuSeconds, minorFaults: use.minorFaults - was.minorFaults };
    })
    .filter((use) => use.cpuSeconds >= 0.05)
    .sort((a, b) => b.cpuSeconds - a.cpuSeconds)
    .map((use) => `${use.name} ${use.cpuSeconds.toFixed(1)} s (${use.minorFaults.toLocaleString('en')} page faults)`)
    .join(', ');
}
