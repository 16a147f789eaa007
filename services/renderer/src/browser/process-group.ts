import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** R, S, D, Z (zombie), ... */
  state: string;
}

/** Puppeteer starts Chromium detached, so the browser's pid is also its process group id. */
export function killProcessGroup(pgid: number | undefined): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    try {
      process.kill(pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Processes (zombies included) in the given process groups, read from /proc; empty where /proc is absent. */
export function processesInGroups(pgids: Iterable<number>): ProcessInfo[] {
  const wanted = new Set(pgids);
  const found: ProcessInfo[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pgid = Number(fields[2]);
      if (wanted.has(pgid)) found.push({ pid: Number(entry), ppid: Number(fields[1]), pgid, state: fields[0] ?? '?' });
    } catch {
      // exited while listing
    }
  }
  return found;
}

/**
 * Waits (at most `ms`) until no live process remains in the group. Zombies are not waited for:
 * Chromium's zygotes outlive the browser by a moment and are then reaped by PID 1, not by us.
 */
export async function waitForGroupExit(pgid: number | undefined, ms: number): Promise<boolean> {
  if (pgid === undefined) return true;
  const until = Date.now() + ms;
  for (;;) {
    const live = processesInGroups([pgid]).filter((p) => p.state !== 'Z');
    if (live.length === 0) return true;
    if (Date.now() > until) return false;
    killProcessGroup(pgid);
    await sleep(20);
  }
}
