export * from './health-server.js';
export * from './readiness.js';
export * from './run-service.js';
export * from './https-options.js';
