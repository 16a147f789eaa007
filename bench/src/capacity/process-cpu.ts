import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

interface Proc {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime, in seconds (children that exited and were waited for included). */
  cpu: number;
  /** Pages mapped in on first touch (minor faults): freshly allocated memory. */
  minorFaults: number;
}

function readProcs(): Map<number, Proc> {
  const procs = new Map<number, Proc>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields start after its last ')'.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      procs.set(Number(entry), { pid: Number(entry), ppid: Number(f[1]), cpu: ticks / TICKS_PER_SECOND, minorFaults: Number(f[7]) });
    } catch {
      // gone meanwhile
    }
  }
  return procs;
}

const labelOf = (pid: number): string | undefined => {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    return /services\/([a-z-]+)\/dist\/main\.js/.exec(cmd)?.[1] ?? (cmd.includes('nats-server') ? 'nats' : undefined);
  } catch {
    return undefined;
  }
};

/** `measure` summed over each service this process started (its whole process tree), by service name; replicas add up. */
function byService(measure: (p: Proc) => number, root: number): Record<string, number> {
  const procs = readProcs();
  const children = new Map<number, number[]>();
  for (const p of procs.values()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const subtree = (pid: number): number => {
    const p = procs.get(pid);
    return (p ? measure(p) : 0) + (children.get(pid) ?? []).reduce((s, c) => s + subtree(c), 0);
  };
  const out: Record<string, number> = {};
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      const label = labelOf(child);
      if (label) out[label] = (out[label] ?? 0) + subtree(child);
      else visit(child);
    }
  };
  visit(root);
  return out;
}

/**
 * CPU seconds used so far by each service this process started (its whole process tree: a renderer's
 * Chromium processes count as the renderer's), by service name; replicas add up.
 */
export const cpuByService = (root = process.pid): Record<string, number> => byService((p) => p.cpu, root);

/** Minor page faults so far of each service this process started, counted like `cpuByService`. */
export const minorFaultsByService = (root = process.pid): Record<string, number> => byService((p) => p.minorFaults, root);

export const cpuDelta = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.keys(after).map((k) => [k, after[k]! - (before[k] ?? 0)]));

/**
 * CPU seconds the whole machine has spent busy so far (every process, the kernel's interrupts included:
 * user, nice, system, irq, softirq and steal of /proc/stat), for what no service owns (the bench's own
 * processes and a baseline's browser).
 */
export function machineBusySeconds(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}
