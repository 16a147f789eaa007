export { BrowserPool, type BrowserPoolOptions, type PoolLogger, type PoolStats, type RunOptions } from './browser-pool.js';
export { CHROMIUM_CANDIDATES, findChromium } from './launch-options.js';
