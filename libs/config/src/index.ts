export { z } from 'zod';
export * from './load-config.js';
export * from './env-types.js';
