/** The edge's results module (async renders, their status, result files, the render cache, the expiry sweep): its only face. */
export { buildResults } from './build-results.js';
export { objectStoreFiles } from './adapters/object-store-files.js';
export type { AsyncHttpDeps } from './async-http-deps.js';
export type { RenderAsync } from './render-async.js';
export type { RenderCached } from './render-cached.js';
export type { GetRenderStatus, RenderStatusView } from './render-status.js';
export type { OpenResultFile } from './result-file.js';
export type { RecentRenders } from './ports.js';
