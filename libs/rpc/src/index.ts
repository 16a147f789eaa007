export * from './errors.js';
export * from './server.js';
export * from './client.js';
export * from './client-channel.js';
