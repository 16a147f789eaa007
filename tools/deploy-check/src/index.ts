export * from './parse-manifests.js';
export * from './schema-registry.js';
export * from './kustomize.js';
export * from './source-manifests.js';
export * from './reference-problems.js';
export * from './workloads.js';
export * from './env-usage.js';
