import type { RenderAsync } from '../results/render-async.js';
import type { RenderCached } from '../results/render-cached.js';
import type { GetRenderStatus } from '../results/render-status.js';
import type { OpenResultFile } from '../results/result-file.js';

/** What the async, status, files and cache routes need. */
export interface AsyncHttpDeps {
  renderAsync: RenderAsync;
  renderCached: RenderCached;
  getRenderStatus: GetRenderStatus;
  openResultFile: OpenResultFile;
  publicUrl?: string | undefined;
}
