export { renderJob, type RenderJobEnv } from './render-job.js';
export { poolRenderer, type PoolRendererOptions } from './pool-renderer.js';
export type { NetworkRouting } from './route.js';
export type { Artifact, RenderDeadline, RenderExtras, RenderOperation, RenderOutput, RenderSession } from './types.js';
export { parsePageSession, type PageSession } from './session/page-session.js';
export { imageSize, type ImageSize } from './image-size.js';
export { PAGE_SETUP_STEPS, setupPage, type PageSetupStep } from './page-setup.js';
export { spareEncoders, type EncoderSource } from './screencast/encoder-source.js';
