export * from './connection.js';
export * from './topology.js';
export * from './trace-headers.js';
export { headers, nanos, type MsgHdrs } from '@nats-io/transport-node';
export { jetstream, jetstreamManager, type JsMsg, type JetStreamClient } from '@nats-io/jetstream';
export { Objm, type ObjectStore } from '@nats-io/obj';
