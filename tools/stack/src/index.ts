export * from './stack.js';
export * from './nats-server.js';
export * from './nats-cluster.js';
export * from './free-port.js';
export * from './tls-certificate.js';
export * from './service-process.js';
export * from './supervisor.js';
export * from './demo-account.js';
