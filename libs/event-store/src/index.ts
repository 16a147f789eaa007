export type {
  AppendResult,
  EventStore,
  ExpectedVersion,
  NewEvent,
  Snapshot,
  Stored,
  StoredEvent,
  StoredFields,
} from './event-store.js';
export { sqliteEventStore } from './sqlite/sqlite-event-store.js';
export { mongoEventStore } from './mongo/mongo-event-store.js';
export { aggregateStream, type AggregateOptions } from './aggregate-stream.js';
export {
  commandHandler,
  handleCommand,
  type CommandHandler,
  type CommandResult,
  type Decider,
  type HandleCommandOptions,
} from './handle-command.js';
export { outboxMessageId, outboxRelay, type OutboxRelay, type OutboxRelayOptions } from './outbox-relay.js';
