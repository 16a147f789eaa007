import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Each Chromium gets `<tmpdir>/renderer-chromium-XXXXXX/` (its profile and its TMPDIR), with an `owner`
 * file naming the renderer process that made it: its pid and start time (in clock ticks since boot, so
 * a reused pid is told apart). A renderer that was SIGKILLed cannot delete its own; the next pool to
 * start on the machine removes every folder whose owner is gone. The path stays short on purpose:
 * Chromium's sockets live under it, and a socket path may not exceed 107 bytes.
 */
const PREFIX = 'renderer-chromium-';
const OWNER_FILE = 'owner';

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

/**
 * Removes the profile folders of renderer processes that no longer run (a folder without its owner
 * file is being created, or not ours to judge). Never rejects; returns the folders it removed.
 */
export async function sweepDeadProfiles(): Promise<string[]> {
  const root = tmpdir();
  const entries = (await readdir(root).catch(() => [] as string[])).filter((entry) => entry.startsWith(PREFIX));
  const dead: string[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      const owner = await readFile(join(root, entry, OWNER_FILE), 'utf8').catch(() => undefined);
      if (owner === undefined || ownerAlive(owner)) return;
      dead.push(join(root, entry));
      await rm(join(root, entry), { recursive: true, force: true, maxRetries: 3, retryDelay: 100 }).catch(() => undefined);
    }),
  );
  return dead;
}

export interface ProfileDir {
  /** Fresh --user-data-dir, holding only PROFILE_PREFERENCES. */
  userDataDir: string;
  /** The browser's TMPDIR, so files it leaves behind when killed go away with the profile. */
  tmpDir: string;
  /** Deletes both (idempotent, never rejects). */
  remove(): Promise<void>;
}

/**
 * Preferences every browser's profile starts with. WebRTC may use no UDP that does not go through the proxy
 * (an HTTP proxy carries none), nor enumerate network routes: no packet of a page's STUN, TURN or data
 * channel leaves the browser around the egress guard. Incognito contexts read through to these.
 */
export const PROFILE_PREFERENCES = {
  webrtc: { ip_handling_policy: 'disable_non_proxied_udp', multiple_routes_enabled: false, nonproxied_udp_enabled: false },
} as const;

/** A fresh profile folder holding PROFILE_PREFERENCES, a TMPDIR beside it, and the owner file. */
export async function createProfileDir(): Promise<ProfileDir> {
  const root = await mkdtemp(join(tmpdir(), PREFIX));
  let removal: Promise<void> | undefined;
  const profile: ProfileDir = {
    userDataDir: join(root, 'profile'),
    tmpDir: join(root, 'tmp'),
    remove: () => (removal ??= rm(root, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 }).catch(() => undefined)),
  };
  try {
    await Promise.all([
      mkdir(join(profile.userDataDir, 'Default'), { recursive: true }),
      mkdir(profile.tmpDir),
      writeFile(join(root, OWNER_FILE), ownerLine(process.pid)),
    ]);
    await writeFile(join(profile.userDataDir, 'Default', 'Preferences'), JSON.stringify(PROFILE_PREFERENCES));
  } catch (err) {
    await profile.remove();
    throw err;
  }
  return profile;
}
