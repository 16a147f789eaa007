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
export { CHROMIUM_CANDIDATES, findChromium } from './launch-options.js';
export { spkiHashes } from './trusted-certificates.js';
