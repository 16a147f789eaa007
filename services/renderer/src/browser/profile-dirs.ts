import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createOwnedDir, removeDir } from './owned-dirs.js';

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
 * channel leaves the browser around the egress guard. Incognito contexts read through to these. The full
 * browser holds to them; the headless shell has no such preferences and holds to the launch flag instead
 * (launch-options.ts).
 */
export const PROFILE_PREFERENCES = {
  webrtc: { ip_handling_policy: 'disable_non_proxied_udp', multiple_routes_enabled: false, nonproxied_udp_enabled: false },
} as const;

/**
 * A fresh profile folder holding PROFILE_PREFERENCES, with a TMPDIR beside it, both in
 * `<tmpdir>/renderer-chromium-XXXXXX/`, owned by this renderer process (owned-dirs.ts: removed by the
 * next renderer if this one is SIGKILLed). The path stays short on purpose: Chromium's sockets live
 * under it, and a socket path may not exceed 107 bytes.
 */
export async function createProfileDir(): Promise<ProfileDir> {
  const root = await createOwnedDir('renderer-chromium-');
  let removal: Promise<void> | undefined;
  const profile: ProfileDir = {
    userDataDir: join(root, 'profile'),
    tmpDir: join(root, 'tmp'),
    remove: () => (removal ??= removeDir(root)),
  };
  try {
    await Promise.all([mkdir(join(profile.userDataDir, 'Default'), { recursive: true }), mkdir(profile.tmpDir)]);
    await writeFile(join(profile.userDataDir, 'Default', 'Preferences'), JSON.stringify(PROFILE_PREFERENCES));
  } catch (err) {
    await profile.remove();
    throw err;
  }
  return profile;
}
