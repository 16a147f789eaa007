import type { RenderAsync } from '../application/render-async.js';
import type { RenderCached } from '../application/render-cached.js';
import type { GetRenderStatus } from '../application/render-status.js';
import type { OpenResultFile } from '../application/result-file.js';

/** What the async, status, files and cache routes need. */
export interface AsyncHttpDeps {
  renderAsync: RenderAsync;
  renderCached: RenderCached;
  getRenderStatus: GetRenderStatus;
  openResultFile: OpenResultFile;
  publicUrl?: string | undefined;
}
