import type { RenderAsync } from './render-async.js';
import type { RenderCached } from './render-cached.js';
import type { GetRenderStatus } from './render-status.js';
import type { OpenResultFile } from './result-file.js';

/** What the async, status, files and cache routes need. */
export interface AsyncHttpDeps {
  renderAsync: RenderAsync;
  renderCached: RenderCached;
  getRenderStatus: GetRenderStatus;
  openResultFile: OpenResultFile;
  publicUrl?: string | undefined;
}
