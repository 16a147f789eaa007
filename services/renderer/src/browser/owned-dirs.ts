import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Temporary folders a renderer process owns: `<tmpdir>/<prefix><pid>.<start>-XXXXXX/`, named for the
 * process that made it, its pid and start time (in clock ticks since boot, so a reused pid is told
 * apart). The owner is in the name, so a folder is never without one, even when its renderer is killed
 * the instant it made it. A renderer that was SIGKILLed cannot delete its own; the next one to start
 * on the machine removes every such folder whose owner is gone.
 */
const OWNER_IN_NAME = /^(\d+)\.(\d+|\?)-/;

/** Every kind of folder a renderer leaves in TMPDIR: Chromium profiles, screencast encodings. */
export const OWNED_DIR_PREFIXES = ['renderer-chromium-', 'renderer-screencast-'] as const;
export type OwnedDirPrefix = (typeof OWNED_DIR_PREFIXES)[number];

/** The start time of a process (field 22 of /proc/PID/stat), or undefined when it does not run. */
function startTicksOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

const ownerLine = (pid: number) => `${pid} ${startTicksOf(pid) ?? '?'}`;
/** This process's own owner line, read from /proc once (not on every folder a render makes). */
let ownLine: string | undefined;
const ownOwnerLine = () => (ownLine ??= ownerLine(process.pid));

/** False only when the process named in an owner file is known to be gone (or its pid reused). */
function ownerAlive(line: string): boolean {
  const [pidText, ticks] = line.trim().split(' ');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  return ownerLine(pid) === `${pid} ${ticks}`;
}

/** Removes a folder and everything in it; never rejects. */
export const removeDir = (dir: string): Promise<void> => rm(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 }).catch(() => undefined);

/** A fresh folder in TMPDIR owned by this process (removed by the next renderer if this one dies). */
export function createOwnedDir(prefix: OwnedDirPrefix): Promise<string> {
  return mkdtemp(join(tmpdir(), `${prefix}${ownOwnerLine().replace(' ', '.')}-`));
}

/** The owner line (`pid start`) a folder's name carries, or undefined for a name not of this shape. */
export function ownerOf(entry: string): string | undefined {
  const prefix = OWNED_DIR_PREFIXES.find((p) => entry.startsWith(p));
  const match = prefix && OWNER_IN_NAME.exec(entry.slice(prefix.length));
  return match ? `${match[1]} ${match[2]}` : undefined;
}

/**
 * Removes the owned folders of renderer processes that no longer run (a folder whose name names no owner
 * is not ours to judge). Never rejects; returns the folders it removed.
 */
export async function sweepDeadOwners(): Promise<string[]> {
  const root = tmpdir();
  const entries = await readdir(root).catch(() => [] as string[]);
  const dead: string[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      const owner = ownerOf(entry);
      if (owner === undefined || ownerAlive(owner)) return;
      dead.push(join(root, entry));
      await removeDir(join(root, entry));
    }),
  );
  return dead;
}
