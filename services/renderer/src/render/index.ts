export { renderJob } from './render-job.js';
export { poolRenderer } from './pool-renderer.js';
export type { Artifact, RenderDeadline, RenderOperation, RenderOutput } from './types.js';
export { imageSize, type ImageSize } from './image-size.js';
export { PAGE_SETUP_STEPS, setupPage, type PageSetupStep } from './page-setup.js';
