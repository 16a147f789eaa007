export * from './parameters.js';
export * from './validate.js';
export type { RenderParams } from '@app/proto/render';
