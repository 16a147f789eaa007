import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;
/**
 * How far a reaped life may read over what its parent's count grew by and still be taken as come back: the
 * kernel adds a child's exact time to its parent's count, while /proc rounds each figure (the child's user
 * and system time, the parent's two counts) to a tick on its own.
 */
const ROUNDING_SLACK = 4 / TICKS_PER_SECOND;

interface Proc {
  pid: number;
  ppid: number;
  /** When the process started (clock ticks since boot): with the pid, who it is (pids are reused). */
  startTicks: number;
  /** utime + stime of the process itself, in seconds. */
  cpu: number;
  /** Pages mapped in on first touch (minor faults): freshly allocated memory. */
  minorFaults: number;
  /** The same two of the children it waited for once they ended (cutime + cstime, cminflt). */
  reaped: { cpu: number; minorFaults: number };
}

/** Every process of the machine at one moment, by pid. */
export type ProcessSnapshot = ReadonlyMap<number, Proc>;

export function snapshotProcesses(): ProcessSnapshot {
  const procs = new Map<number, Proc>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields start after its last ')'.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(entry);
      procs.set(pid, {
        pid,
        ppid: Number(f[1]),
        startTicks: Number(f[19]),
        cpu: (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND,
        minorFaults: Number(f[7]),
        reaped: { cpu: (Number(f[13]) + Number(f[14])) / TICKS_PER_SECOND, minorFaults: Number(f[8]) },
      });
    } catch {
      // gone meanwhile
    }
  }
  return procs;
}

/** A process's command line, its words joined by spaces ('' once it is gone). */
const commandLineOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
};

/** The service a command line runs, if it is one of the stack's. */
const labelOf = (cmd: string): string | undefined =>
  /services\/([a-z-]+)\/dist\/main\.js/.exec(cmd)?.[1] ?? (cmd.includes('nats-server') ? 'nats' : undefined);

/** Whether a command line is a browser's (Chromium's or the headless shell's). */
const isBrowser = (cmd: string): boolean => /chrom/i.test(cmd);

/** What a service's processes did since a snapshot. */
export interface ServiceUse {
  /** CPU seconds. */
  cpu: number;
  /** Minor page faults: pages of freshly allocated memory touched. */
  minorFaults: number;
}

/** The label of a service's own browsers with `browsersApart` (a renderer's Chromium). */
export const browsersOf = (service: string) => `${service}: browser`;
/** The label of the browsers this process itself started with `browsersApart` (the baselines'). */
export const BASELINE_BROWSER = 'baseline: browser';
/** The label of this process's own figures with `browsersApart` (its clients, the fixture site, a baseline's Puppeteer). */
export const BENCH_PROCESS = 'bench process';

/**
 * What each service this process started (its whole process tree: a renderer's Chromium processes count as
 * the renderer's) did since `before`, by service name (replicas add up), from one walk of /proc: for each
 * of its processes now, its figures now less its figures then (all of them for a process started since),
 * with what the children it reaped in between did (a Chromium's page processes, which end with their
 * context; a recycled browser): a process's count of its reaped children grows by a child's whole life,
 * so what a child that lived at `before` had done by then is taken off.
 *
 * With `browsersApart`, a service's browsers are counted apart from the service's own process, under
 * `browsersOf(service)` (with whatever else it started and reaped: a recycled browser, a screencast's
 * encoder), the browsers this process started itself under BASELINE_BROWSER, and this process's own
 * figures under BENCH_PROCESS: where a render's CPU goes, in Chromium or around it.
 */
export function useByServiceSince(before: ProcessSnapshot, root = process.pid, opts: { browsersApart?: boolean } = {}): Record<string, ServiceUse> {
  const procs = snapshotProcesses();
  const children = new Map<number, number[]>();
  for (const p of procs.values()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const isNow = (p: Proc) => procs.get(p.pid)?.startTicks === p.startTicks;
  /** Processes of `before` that have ended since, by their parent then. */
  const ended = new Map<number, Proc[]>();
  for (const p of before.values()) {
    if (isNow(p)) continue;
    const siblings = ended.get(p.ppid);
    if (siblings) siblings.push(p);
    else ended.set(p.ppid, [p]);
  }
  const own = (p: Proc): ServiceUse => ({ cpu: p.cpu, minorFaults: p.minorFaults });
  const addUse = (into: ServiceUse, use: ServiceUse, sign: 1 | -1) => {
    into.cpu += sign * use.cpu;
    into.minorFaults += sign * use.minorFaults;
  };
  const lifeThen = (q: Proc): ServiceUse => ({ cpu: q.cpu + q.reaped.cpu, minorFaults: q.minorFaults + q.reaped.minorFaults });
  /** What an ended process and the processes under it that ended too had done by `before`. */
  const subtreeLifeThen = (q: Proc): ServiceUse => {
    const life = lifeThen(q);
    for (const r of ended.get(q.pid) ?? []) addUse(life, subtreeLifeThen(r), 1);
    return life;
  };
  /**
   * What the children `p` reaped since `before` had done by then. A child's whole life comes back in its
   * parent's count, with the lives of the processes it reaped itself: those it waited for come back along
   * with it, and what they had done by `before` is taken off too. Those it left behind are reaped elsewhere
   * and never come back: Chromium leaves its zygote (with the page processes) behind, and waits for its GPU
   * and network processes. Which came back is not recorded anywhere; what the count grew by bounds it. So
   * each child's own life then is taken off, and then its ended descendants' lives then, largest first, as
   * long as they fit in what is left of the growth (within the rounding of the figures).
   */
  const reapedLivesThen = (p: Proc, then: Proc): ServiceUse => {
    const taken: ServiceUse = { cpu: 0, minorFaults: 0 };
    const descendants: ServiceUse[] = [];
    for (const q of ended.get(p.pid) ?? []) {
      addUse(taken, lifeThen(q), 1);
      for (const r of ended.get(q.pid) ?? []) descendants.push(subtreeLifeThen(r));
    }
    let left = p.reaped.cpu - then.reaped.cpu - taken.cpu;
    for (const life of descendants.sort((a, b) => b.cpu - a.cpu)) {
      if (life.cpu > left + ROUNDING_SLACK) continue;
      addUse(taken, life, 1);
      left -= life.cpu;
    }
    return taken;
  };
  /** A process's figures since `before`: its own (`ownInto`) and its reaped children's (`reapedInto`). */
  const add = (ownInto: ServiceUse, reapedInto: ServiceUse, p: Proc) => {
    addUse(ownInto, own(p), 1);
    addUse(reapedInto, p.reaped, 1);
    const then = before.get(p.pid);
    if (then === undefined || then.startTicks !== p.startTicks) return;
    addUse(ownInto, own(then), -1);
    addUse(reapedInto, then.reaped, -1);
    addUse(reapedInto, reapedLivesThen(p, then), -1);
  };
  const addSubtree = (into: ServiceUse, pid: number) => {
    const p = procs.get(pid);
    if (p) add(into, into, p);
    for (const child of children.get(pid) ?? []) addSubtree(into, child);
  };
  const out: Record<string, ServiceUse> = {};
  const use = (label: string) => (out[label] ??= { cpu: 0, minorFaults: 0 });
  /**
   * A service's process: with browsersApart, what it started (reaped or running) goes under its browsers'
   * label, which a service that started nothing does not get.
   */
  const addService = (label: string, pid: number) => {
    if (!opts.browsersApart) return addSubtree(use(label), pid);
    const browsers: ServiceUse = { cpu: 0, minorFaults: 0 };
    const p = procs.get(pid);
    if (p) add(use(label), browsers, p);
    for (const child of children.get(pid) ?? []) addSubtree(browsers, child);
    if (browsers.cpu !== 0 || browsers.minorFaults !== 0) addUse(use(browsersOf(label)), browsers, 1);
  };
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      const cmd = commandLineOf(child);
      const label = labelOf(cmd);
      if (label) addService(label, child);
      else if (opts.browsersApart && pid === root && isBrowser(cmd)) addSubtree(use(BASELINE_BROWSER), child);
      else visit(child);
    }
  };
  visit(root);
  const self = procs.get(root);
  if (opts.browsersApart && self) add(use(BENCH_PROCESS), use(BENCH_PROCESS), self);
  return out;
}

/** CPU seconds each service this process started has used since `before`, by service name (`useByServiceSince`). */
export const cpuByServiceSince = (before: ProcessSnapshot, root = process.pid, opts: { browsersApart?: boolean } = {}): Record<string, number> =>
  Object.fromEntries(Object.entries(useByServiceSince(before, root, opts)).map(([service, use]) => [service, use.cpu]));

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
