import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Temporary folders a renderer process owns: `<tmpdir>/<prefix>XXXXXX/` with an `owner` file naming the
 * process that made it, its pid and start time (in clock ticks since boot, so a reused pid is told
 * apart). A renderer that was SIGKILLed cannot delete its own; the next one to start on the machine
 * removes every such folder whose owner is gone.
 */
const OWNER_FILE = 'owner';

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
export async function createOwnedDir(prefix: OwnedDirPrefix): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    await writeFile(join(dir, OWNER_FILE), ownerLine(process.pid));
  } catch (err) {
    await removeDir(dir);
    throw err;
  }
  return dir;
}

/**
 * Removes the owned folders of renderer processes that no longer run (a folder without its owner file
 * is being created, or not ours to judge). Never rejects; returns the folders it removed.
 */
export async function sweepDeadOwners(): Promise<string[]> {
  const root = tmpdir();
  const entries = (await readdir(root).catch(() => [] as string[])).filter((entry) => OWNED_DIR_PREFIXES.some((p) => entry.startsWith(p)));
  const dead: string[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      const owner = await readFile(join(root, entry, OWNER_FILE), 'utf8').catch(() => undefined);
      if (owner === undefined || ownerAlive(owner)) return;
      dead.push(join(root, entry));
      await removeDir(join(root, entry));
    }),
  );
  return dead;
}
