export {
  BrowserPool,
  type BrowserPoolOptions,
  type BrowserStats,
  type PoolLogger,
  type PoolState,
  type PoolStats,
  type RunOptions,
  type SlotState,
} from './browser-pool.js';
export { CHROMIUM_CANDIDATES, chromiumFlags, findChromium, isHeadlessShell } from './launch-options.js';
export { createProfileDir, type ProfileDir } from './profile-dirs.js';
export { createOwnedDir, removeDir } from './owned-dirs.js';
export { killProcessGroup } from './process-group.js';
export { spkiHashes } from './trusted-certificates.js';
