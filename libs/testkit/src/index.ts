export * from './fixture-server.js';
export * from './https-client.js';
export * from './otlp-receiver.js';
export * from './hold-route.js';
export * from './image-info.js';
export * from './until.js';
export * from './finished-events.js';
export * from './test-stack.js';
