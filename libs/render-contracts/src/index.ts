// The render records the services share beside proto/render/v1/render.proto: the render job on its
// stream (inline or by reference), each result object's metadata, the async-status keys, and the
// webhook bodies.
export * from './render-jobs.js';
export * from './result-object.js';
export * from './render-status-keys.js';
export * from './render-producers.js';
export * from './webhook-bodies.js';
